// Account test helpers: a real SMTP server on loopback (smtp-server) that collects what the service sends,
// a free port so the server's public address (and so its token issuer and email links) is the real one,
// and a quick signed-in account through the built-in identity provider's HTTP routes.
import { request as httpRequest } from "node:http";
import { SMTPServer } from "smtp-server";
import type { AppDeps } from "../../server/app.ts";
import type { Config } from "../../server/config.ts";
import { freePort } from "./ports.ts";
import { startServer, type TestServer } from "./server.ts";

export interface Inbox {
  port: number;
  messages: { to: string; raw: string }[];
  /** The next message to `to` (waits for it). */
  next(to: string, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

export async function startInbox(): Promise<Inbox> {
  const messages: { to: string; raw: string }[] = [];
  const waiters: { to: string; since: number; resolve: (raw: string) => void }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        for (const rcpt of session.envelope.rcptTo) {
          messages.push({ to: rcpt.address.toLowerCase(), raw });
        }
        for (const w of [...waiters]) {
          const found = messages.slice(w.since).find((m) => m.to === w.to);
          if (found) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(found.raw);
          }
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  const seen = new Map<string, number>();
  return {
    port,
    messages,
    next(to, timeoutMs = 10_000) {
      const addr = to.toLowerCase();
      const since = seen.get(addr) ?? 0;
      return new Promise<string>((resolve, reject) => {
        const take = (raw: string) => {
          seen.set(addr, messages.findIndex((m, i) => i >= since && m.to === addr && m.raw === raw) + 1);
          resolve(raw);
        };
        const found = messages.slice(since).find((m) => m.to === addr);
        if (found) return take(found.raw);
        const t = setTimeout(() => reject(new Error(`no email to ${to}`)), timeoutMs);
        waiters.push({
          to: addr,
          since,
          resolve: (raw) => {
            clearTimeout(t);
            take(raw);
          },
        });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * An email's text as its reader sees it: decoded only when its headers say quoted-printable (nodemailer's
 * choice over SMTP). The outbox writes plain text, where "=3D" is literal: a link token that begins with
 * "3D" (1 in 4,096) must not lose those two characters.
 */
export function mailText(raw: string): string {
  // The header may be the message's or a MIME part's (nodemailer sends text and HTML parts).
  if (!/^content-transfer-encoding:\s*quoted-printable/im.test(raw)) return raw;
  // Bytes first, then UTF-8: an encoded "é" is two =XX escapes of one character.
  const bytes = raw
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** The link of the built-in provider's emails. */
export function linkIn(raw: string): string {
  const text = mailText(raw);
  const m = /(https?:\/\/[^\s"<>]+\/auth\/v1\/verify\?[^\s"<>]+)/.exec(text);
  if (!m) throw new Error(`no link in email:\n${raw}`);
  return m[1]!.replace(/&amp;/g, "&");
}

export { freePort };

export interface SignedIn {
  email: string;
  access: string;
  refresh: string;
  /** The identity subject, which is the account id. */
  id: string;
}

/** The newest outbox email to `to` in a server's data dir (the no-SMTP delivery), waiting briefly. */
export async function outboxMail(dataDir: string, to: string, after = 0, timeoutMs = 5_000): Promise<string> {
  const { readdir, readFile } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const dir = join(dataDir, "outbox");
  const until = Date.now() + timeoutMs;
  for (;;) {
    const files = (await readdir(dir).catch(() => [] as string[])).sort().reverse();
    for (const f of files) {
      if (Number(f.split("-")[0]) < after) continue;
      const raw = await readFile(join(dir, f), "utf8");
      if (raw.toLowerCase().includes(`to: ${to.toLowerCase()}`)) return raw;
    }
    if (Date.now() > until) throw new Error(`no outbox email to ${to}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Signs up through the built-in provider's HTTP routes, confirms through the outbox link (implicit flow:
 * the session comes back in the redirect's fragment), and optionally sets a handle.
 */
export async function signUp(
  srv: { url: string; dataDir: string },
  email: string,
  handle?: string,
  password = "a long test password",
): Promise<SignedIn> {
  const index = (await (await fetch(`${srv.url}/api`)).json()) as {
    accounts: { identity_url: string; publishable_key: string };
  };
  const started = Date.now() - 1;
  const res = await fetch(`${srv.url}${new URL(index.accounts.identity_url).pathname}/signup`, {
    method: "POST",
    headers: { apikey: index.accounts.publishable_key, "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`signup ${res.status} ${await res.text()}`);
  // The link names the server's configured address; a test server on a random port is reached at srv.url.
  const emailed = new URL(linkIn(await outboxMail(srv.dataDir, email, started)));
  const link = `${srv.url}${emailed.pathname}${emailed.search}`;
  const confirmed = await fetch(link, { redirect: "manual" });
  const frag = new URLSearchParams(new URL(confirmed.headers.get("location")!).hash.slice(1));
  const access = frag.get("access_token");
  if (!access) throw new Error(`confirmation gave no session: ${confirmed.headers.get("location")}`);
  const id = JSON.parse(Buffer.from(access.split(".")[1]!, "base64url").toString()).sub as string;
  const who = { email, access, refresh: frag.get("refresh_token")!, id };
  if (handle) {
    const r = await fetch(`${srv.url}/api/account/handle`, {
      method: "PUT",
      headers: { authorization: `Bearer ${access}`, "content-type": "application/json" },
      body: JSON.stringify({ handle }),
    });
    if (r.status !== 200) throw new Error(`handle ${r.status} ${await r.text()}`);
  }
  return who;
}

/** Signs in with a password through the built-in provider's HTTP route (a new session). */
export async function signIn(
  srv: { url: string },
  email: string,
  password = "a long test password",
): Promise<SignedIn> {
  const index = (await (await fetch(`${srv.url}/api`)).json()) as {
    accounts: { identity_url: string; publishable_key: string };
  };
  const res = await fetch(
    `${srv.url}${new URL(index.accounts.identity_url).pathname}/token?grant_type=password`,
    {
      method: "POST",
      headers: { apikey: index.accounts.publishable_key, "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    },
  );
  const body = (await res.json()) as { access_token?: string; refresh_token?: string; user?: { id: string } };
  if (res.status !== 200 || !body.access_token)
    throw new Error(`sign-in ${res.status} ${JSON.stringify(body)}`);
  return { email, access: body.access_token, refresh: body.refresh_token!, id: body.user!.id };
}

/** A JSON call with an optional bearer credential; returns status, body and headers. */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Record<string, unknown> & { code?: string }; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.body !== undefined ? { "content-type": "application/json" } : {}),
      ...(opts.headers ?? {}),
    },
    ...(opts.body !== undefined
      ? { body: typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body) }
      : {}),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = { text };
  }
  return { status: res.status, body, headers: res.headers };
}

/**
 * A server whose public address is its real one (a free port chosen first), so the identity provider's
 * issuer, GET /api's identity_url and the emailed links all point at it.
 */
export async function startAccountServer(
  over: Partial<Config> = {},
  deps: AppDeps = {},
): Promise<TestServer> {
  const port = await freePort();
  return startServer(
    { port, host: "127.0.0.1", publicUrl: `http://127.0.0.1:${port}`, anonymousDev: false, ...over },
    deps,
  );
}

/**
 * A POST to the built-in identity provider (`/auth/v1` + `path`) sent from a given local address (a loopback
 * alias), with `headers` (the apikey among them): its status, code, Retry-After and the device cookie it set.
 */
export function idpPostFrom(
  url: string,
  local: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; code: string | undefined; retryAfter: number; cookie: string | undefined }> {
  const u = new URL(`${url}/auth/v1${path}`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method: "POST",
        localAddress: local,
        agent: false,
        headers: { "content-type": "application/json", ...headers },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => {
          text += c.toString();
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            code: (JSON.parse(text || "{}") as { code?: string }).code,
            retryAfter: Number(res.headers["retry-after"] ?? 0),
            cookie: res.headers["set-cookie"]?.[0]?.split(";")[0],
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}
