// A real SMTP server on loopback (smtp-server) that the email tests steer: it records each message with the
// time its MAIL FROM came, refuses chosen recipients with 550, drops the connection in the middle of chosen
// recipients' messages, or holds a message's end-of-data answer (to kill the sending server meanwhile). Also
// a sign-up through the built-in identity provider whose confirmation link comes by this SMTP server. A
// front (startFront) stands before it and can hang: accept connections and never say a word.
import { createServer, connect as netConnect, type Socket } from "node:net";
import { SMTPServer } from "smtp-server";
import { linkIn } from "./accounts.ts";

export interface SinkMessage {
  to: string;
  raw: string;
  category: string | null;
  at: number;
}

export interface Sink {
  port: number;
  messages: SinkMessage[];
  /** When each MAIL FROM arrived (one per submission attempt). */
  submissions: { at: number; to: string | null }[];
  refuse: Set<string>;
  /** Announcement messages to these recipients lose their connection at the end of the data. */
  drop: Set<string>;
  /** The next announcement message to each of these is never answered. */
  hold: Set<string>;
  /** While true, no message (any category) gets its end-of-data answer: the server goes silent after DATA. */
  stall: boolean;
  /** Resolves with the recipient when a held message has been received in full (its answer is withheld). */
  held(): Promise<string>;
  /** Waits until `pred` holds for the messages so far. */
  until(pred: (m: SinkMessage[]) => boolean, timeoutMs?: number): Promise<void>;
  of(category: string): SinkMessage[];
  close(): Promise<void>;
}

export async function startSink(): Promise<Sink> {
  const messages: SinkMessage[] = [];
  const submissions: { at: number; to: string | null }[] = [];
  const refuse = new Set<string>();
  const drop = new Set<string>();
  const hold = new Set<string>();
  const sockets = new Map<number, Socket>();
  const heldWaiters: ((to: string) => void)[] = [];
  const heldQueue: string[] = [];
  let changed: () => void = () => {};
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    logger: false,
    onMailFrom(_address, _session, cb) {
      submissions.push({ at: Date.now(), to: null });
      cb();
    },
    onRcptTo(address, _session, cb) {
      const to = address.address.toLowerCase();
      const last = submissions.at(-1);
      if (last) last.to = to;
      if (refuse.has(to)) return cb(Object.assign(new Error("mailbox unavailable"), { responseCode: 550 }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const to = (session.envelope.rcptTo[0]?.address ?? "").toLowerCase();
        const category = /^X-Ladder-Category:\s*(\S+)/im.exec(raw)?.[1] ?? null;
        // Drops and holds apply to announcements only (other mail to the same person goes through).
        if (drop.has(to) && category === "announcements") {
          sockets.get(session.remotePort)?.destroy();
          return;
        }
        if (sink.stall) return; // silent: the sender cannot know whether the message was taken
        if (hold.has(to) && category === "announcements") {
          hold.delete(to);
          const w = heldWaiters.shift();
          if (w) w(to);
          else heldQueue.push(to);
          return; // never answered: the sender cannot know whether the message was taken
        }
        messages.push({ to, raw, category, at: Date.now() });
        changed();
        cb();
      });
    },
  });
  server.server.on("connection", (s: Socket) => {
    if (s.remotePort) sockets.set(s.remotePort, s);
  });
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  const sink: Sink = {
    port,
    messages,
    submissions,
    refuse,
    drop,
    hold,
    stall: false,
    held: () =>
      new Promise((resolve) => {
        const q = heldQueue.shift();
        if (q) resolve(q);
        else heldWaiters.push(resolve);
      }),
    until(pred, timeoutMs = 20_000) {
      return new Promise<void>((resolve, reject) => {
        if (pred(messages)) return resolve();
        const t = setTimeout(
          () => reject(new Error(`sink: condition not met; got ${messages.length} messages`)),
          timeoutMs,
        );
        const prev = changed;
        changed = () => {
          prev();
          if (pred(messages)) {
            clearTimeout(t);
            resolve();
          }
        };
      });
    },
    of: (category) => messages.filter((m) => m.category === category),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets.values()) s.destroy();
        server.close(() => resolve());
      }),
  };
  return sink;
}

export interface Front {
  port: number;
  /** While true, new connections are accepted and then left silent (no greeting, nothing forwarded). */
  hang: boolean;
  /** Connections accepted while hanging. */
  hung: number;
  close(): Promise<void>;
}

/** A TCP front for the sink: passes connections through, or (hang) accepts them and never answers. */
export async function startFront(target: number): Promise<Front> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => {});
    if (front.hang) {
      front.hung++;
      return; // accepted, never greeted: the mail server "hangs"
    }
    const upstream = netConnect(target, "127.0.0.1");
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const front: Front = {
    port: (server.address() as { port: number }).port,
    hang: false,
    hung: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  return front;
}

/** Signs up through the built-in provider; the confirmation link comes by the sink (implicit flow). */
export async function signUpBySmtp(
  url: string,
  sink: Sink,
  email: string,
  handle?: string,
): Promise<{ email: string; access: string; refresh: string; id: string }> {
  const index = (await (await fetch(`${url}/api`)).json()) as {
    accounts: { identity_url: string; publishable_key: string };
  };
  const before = sink.messages.length;
  const res = await fetch(`${url}${new URL(index.accounts.identity_url).pathname}/signup`, {
    method: "POST",
    headers: { apikey: index.accounts.publishable_key, "content-type": "application/json" },
    body: JSON.stringify({ email, password: "a long test password for mail" }),
  });
  if (res.status !== 200) throw new Error(`signup ${res.status} ${await res.text()}`);
  const lower = email.toLowerCase();
  await sink.until((m) => m.slice(before).some((x) => x.to === lower && x.raw.includes("/auth/v1/verify")));
  const raw = sink.messages
    .slice(before)
    .find((x) => x.to === lower && x.raw.includes("/auth/v1/verify"))!.raw;
  const emailed = new URL(linkIn(raw));
  const confirmed = await fetch(`${url}${emailed.pathname}${emailed.search}`, { redirect: "manual" });
  const frag = new URLSearchParams(new URL(confirmed.headers.get("location")!).hash.slice(1));
  const access = frag.get("access_token");
  if (!access) throw new Error(`confirmation gave no session: ${confirmed.headers.get("location")}`);
  const id = JSON.parse(Buffer.from(access.split(".")[1]!, "base64url").toString()).sub as string;
  // The account exists from its first authenticated use.
  const put = await fetch(`${url}/api/account${handle ? "/handle" : ""}`, {
    method: handle ? "PUT" : "GET",
    headers: { authorization: `Bearer ${access}`, ...(handle ? { "content-type": "application/json" } : {}) },
    ...(handle ? { body: JSON.stringify({ handle }) } : {}),
  });
  if (put.status !== 200) throw new Error(`account ${put.status} ${await put.text()}`);
  return { email, access, refresh: frag.get("refresh_token") ?? "", id };
}
