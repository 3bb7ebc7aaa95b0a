// A change and its audit entry are one unit of work (issue 12 part 5): when the audit entry cannot be written,
// the change is not stored either. The database itself refuses the audit rows (a CHECK constraint added for
// the test), so each route below fails with 500 and must leave nothing behind; once the constraint is gone the
// same calls succeed and their audit entries are there. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../server/db/migrate.ts";
import { openDb } from "../../server/db/open.ts";
import { SqlStore } from "../../server/store/sql-store.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { seedPglite } from "../helpers/pglite-template.ts";
import { freshDatabaseUrl, type TestServer } from "../helpers/server.ts";

const AUDITED = ["handle", "agent_key", "registration", "bot_deleted", "token_rotated", "admin"];
const REFUSE = `ALTER TABLE audit ADD CONSTRAINT unit_of_work_test CHECK (kind NOT IN (${AUDITED.map((k) => `'${k}'`).join(", ")})) NOT VALID`;
const ALLOW = "ALTER TABLE audit DROP CONSTRAINT unit_of_work_test";

let srv: TestServer;
let db: Awaited<ReturnType<typeof openDb>>;
let dropDb: () => Promise<void>;
let ada: SignedIn;
let root: SignedIn;
let key: string;
let botToken: string;
let dataDir: string;

beforeAll(async () => {
  const place = await freshDatabaseUrl();
  dropDb = place.drop;
  dataDir = mkdtempSync(join(tmpdir(), "ladder-uow-"));
  if (!place.url) seedPglite(dataDir);
  db = await openDb({ dataDir, ...(place.url ? { databaseUrl: place.url } : {}) });
  const store = new SqlStore(db, await migrate(db));
  srv = await startAccountServer({ dataDir, adminEmails: ["root@example.com"] }, { store });
  [ada, root] = await Promise.all([
    signUp(srv, "ada@example.com", "ada"),
    signUp(srv, "root@example.com", "root"),
  ]);
  const k = await call(srv.url, "POST", "/api/account/keys", { token: ada.access, body: { label: "k" } });
  key = k.body.key as string;
  const b = await call(srv.url, "POST", "/api/bots", { token: key, body: { name: "uow-played" } });
  botToken = b.body.token as string;
  await call(srv.url, "POST", "/api/bots", { token: key, body: { name: "uow-unplayed" } });
}, 60_000);

afterAll(async () => {
  await srv?.stop();
  await dropDb?.();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const account = async () => (await call(srv.url, "GET", "/api/account", { token: ada.access })).body;
/** The subjects of the audit entries of a kind, newest first (GET /api/admin/audit answers a list). */
const audited = async (kind: string) => {
  const r = await fetch(`${srv.url}/api/admin/audit?kind=${kind}`, {
    headers: { authorization: `Bearer ${root.access}` },
  });
  return ((await r.json()) as { subject: string }[]).map((e) => e.subject);
};

describe("while the audit entry cannot be written", () => {
  beforeAll(async () => {
    await db.query(REFUSE);
  });
  afterAll(async () => {
    await db.query(ALLOW);
  });

  it("a handle change is not stored", async () => {
    const r = await call(srv.url, "PUT", "/api/account/handle", {
      token: ada.access,
      body: { handle: "ada2" },
    });
    expect(r.status).toBe(500);
    expect((await account()).handle).toBe("ada");
  });

  it("no agent key is created", async () => {
    const before = ((await account()).agent_keys as unknown[]).length;
    const r = await call(srv.url, "POST", "/api/account/keys", { token: ada.access, body: { label: "x" } });
    expect(r.status).toBe(500);
    expect(((await account()).agent_keys as unknown[]).length).toBe(before);
  });

  it("no bot is registered", async () => {
    const r = await call(srv.url, "POST", "/api/bots", { token: key, body: { name: "uow-new" } });
    expect(r.status).toBe(500);
    expect((await call(srv.url, "GET", "/api/bots/uow-new")).status).toBe(404);
  });

  it("a bot is not deleted", async () => {
    const r = await call(srv.url, "DELETE", "/api/bots/uow-unplayed", { token: key });
    expect(r.status).toBe(500);
    expect((await call(srv.url, "GET", "/api/bots/uow-unplayed")).status).toBe(200);
  });

  it("a bot token is not rotated: the old one still works", async () => {
    const r = await call(srv.url, "POST", "/api/me/token", { token: botToken });
    expect(r.status).toBe(500);
    expect((await call(srv.url, "GET", "/api/me", { token: botToken })).status).toBe(200);
  });

  it("an admin's account deletion is not stored", async () => {
    const r = await call(srv.url, "DELETE", `/api/admin/accounts/${ada.id}`, { token: root.access });
    expect(r.status).toBe(500);
    expect((await account()).handle).toBe("ada");
  });
});

describe("once the audit entry can be written", () => {
  it("the same changes are stored together with their entries", async () => {
    expect(
      (await call(srv.url, "PUT", "/api/account/handle", { token: ada.access, body: { handle: "ada2" } }))
        .status,
    ).toBe(200);
    expect(await audited("handle")).toContain("ada2");

    const made = await call(srv.url, "POST", "/api/bots", { token: key, body: { name: "uow-new" } });
    expect(made.status).toBe(201);
    expect(await audited("registration")).toContain("uow-new");

    expect((await call(srv.url, "DELETE", "/api/bots/uow-unplayed", { token: key })).status).toBe(200);
    expect(await audited("bot_deleted")).toContain("uow-unplayed");

    const rotated = await call(srv.url, "POST", "/api/me/token", { token: botToken });
    expect(rotated.status).toBe(200);
    expect((await call(srv.url, "GET", "/api/me", { token: botToken })).status).toBe(401);
    expect(await audited("token_rotated")).toContain("uow-played");
  });
});
