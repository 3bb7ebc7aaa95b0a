// Account test helpers: a real SMTP server on loopback (smtp-server) that collects what the service sends,
// a free port so the server's public address (and so its token issuer and email links) is the real one,
// and a quick signed-in account through the built-in identity provider's HTTP routes.
import { createServer } from "node:net";
import { SMTPServer } from "smtp-server";

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

/** The link of the built-in provider's emails (quoted-printable soft breaks undone). */
export function linkIn(raw: string): string {
  const text = raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const m = /(https?:\/\/[^\s"<>]+\/auth\/v1\/verify\?[^\s"<>]+)/.exec(text);
  if (!m) throw new Error(`no link in email:\n${raw}`);
  return m[1]!.replace(/&amp;/g, "&");
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
