// Protocol fuzz (issue 3, "What it must show"): thousands of random and malformed frames, sent by several
// connections at once against the real server, never crash it, never corrupt another match, and always get
// a SPEC-conformant answer. While idle connections fuzz (one fast-check property, a fresh connection per
// run), other connections fuzz inside matches against house bots, a flooder is cut off with 1008, bad
// credentials are refused with 1008, and a clean bot plays match after match. Afterwards every stored
// match's replay re-simulates (engine/verify.ts) and a clean bot still plays a full match.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  EndMessage,
  MatchStats,
  ObservationMessage,
  QueueMessage,
  ServerMessage,
} from "../../engine/protocol.ts";
import { verifyReplay } from "../../engine/verify.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_603);
const TICK_MS = 100;
const MAX_BYTES = 4096; // SPEC 8 max_message_bytes
const IDLE_RUNS = 200; // fast-check runs of the idle property, up to 45 frames each
const IN_MATCH_FUZZERS = 3;

type Frame = { data: string | Uint8Array; binary: boolean };
type Msg = { type: string; [k: string]: unknown };

const text = (data: string): Frame => ({ data, binary: false });
const sizeOf = (f: Frame) => (typeof f.data === "string" ? Buffer.byteLength(f.data) : f.data.byteLength);
const oversize = (f: Frame) => sizeOf(f) > MAX_BYTES;

// ---- frame arbitraries ----

const anyString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.string({ maxLength: 60 }),
  fc.constantFrom("", " ", "\u0000", "a\u0000b", "\ud800", "\u202e", "🤖".repeat(9), "x".repeat(33), "v1"),
);
const anyNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 0.5, -0, 1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 2 ** 31, -(2 ** 31), 300, 301),
);
const wrongValue = fc.oneof(
  anyString,
  anyNumber,
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(anyNumber, { maxLength: 4 }),
);
const direction = fc.oneof(
  fc.constantFrom("N", "S", "E", "W", "NE", "NW", "SE", "SW", "north", "up", "n", ""),
  wrongValue,
);
const attack = fc.oneof(
  fc.record(
    {
      name: fc.oneof(fc.constantFrom("ranged", "frostburst", "repulsor", "laser", "RANGED", ""), wrongValue),
      target: fc.oneof(
        fc.tuple(fc.integer({ min: -5, max: 25 }), fc.integer({ min: -5, max: 25 })),
        fc.array(anyNumber, { maxLength: 5 }),
        wrongValue,
      ),
    },
    { requiredKeys: [] },
  ),
  wrongValue,
);
const junkKeys = fc.dictionary(anyString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

/** Objects that look like the four bot messages, with wrong, missing or extra fields. */
const lookalike = fc.oneof(
  fc
    .record(
      { version: fc.oneof(anyString, wrongValue), ladder_id: fc.oneof(anyString, wrongValue) },
      { requiredKeys: [] },
    )
    .map((r) => ({ type: "queue", ...r })),
  fc
    .record(
      {
        tick: fc.oneof(anyNumber, wrongValue),
        move: direction,
        dash: direction,
        attack,
        shout: fc.oneof(anyString, fc.string({ minLength: 41, maxLength: 80 }), wrongValue),
      },
      { requiredKeys: [] },
    )
    .map((r) => ({ type: "turn", ...r })),
  junkKeys.map((k) => ({ ...k, type: "ready" })),
  junkKeys.map((k) => ({ ...k, type: "leave" })),
  fc
    .tuple(
      fc.oneof(
        fc.constantFrom(
          "ping",
          "hello",
          "observation",
          "end",
          "error",
          "Queue",
          "TURN",
          " queue",
          "__proto__",
        ),
        anyString,
        wrongValue,
      ),
      junkKeys,
    )
    .map(([type, k]) => ({ ...k, type })),
);

/** JSON texts JSON.stringify never produces: values that do not survive a round trip, odd keys, nesting. */
const rawText = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "null",
    "true",
    "0",
    "-0",
    "[]",
    "{}",
    '""',
    "1e400",
    '{"type":"turn","tick":1e400}',
    '{"type":"turn","tick":-1e400,"move":"N"}',
    '{"type":"turn","tick":-0}',
    '{"type":"turn","tick":1.0}',
    '{"type":"turn","tick":"1"}',
    '{"type":"queue","type":"turn"}',
    '{"__proto__":{"type":"queue","version":"x"}}',
    '{"type":"turn","__proto__":{"tick":1}}',
    '{"type":"turn","shout":"\\ud800\\udc00\\ud800"}',
    '{"type":"queue","version":"\\ud800"}',
    '{"type":"queue","version":"\\u0000"}',
    '{"type":"queue","version":"v","ladder_id":"\\u0000"}',
    '{"type":"turn"',
    "{'type':'turn'}",
    "\ufeff{}",
  ),
  fc.integer({ min: 1, max: 2000 }).map((d) => "[".repeat(d) + "]".repeat(d)),
  fc
    .integer({ min: 1, max: 800 })
    .map((d) => '{"type":"turn","tick":'.repeat(1) + '{"a":'.repeat(d) + "1" + "}".repeat(d + 1)),
  fc.integer({ min: 1, max: 1300 }).map((d) => '{"a":'.repeat(d) + "0" + "}".repeat(d)),
);

/** A text frame of exactly `n` bytes, ASCII or multi-byte padded, that is otherwise a plausible turn. */
function sized(n: number, multibyte: boolean): string {
  const head = '{"type":"turn","tick":1,"shout":"';
  const tail = '"}';
  let room = n - head.length - tail.length;
  let pad = "";
  if (multibyte) {
    const k = Math.floor(room / 4);
    pad = "😀".repeat(k);
    room -= k * 4;
  }
  return head + pad + "x".repeat(room) + tail;
}
const sizeEdge = fc.oneof(
  fc
    .tuple(fc.integer({ min: MAX_BYTES - 40, max: MAX_BYTES }), fc.boolean())
    .map(([n, m]) => text(sized(n, m))),
  fc
    .tuple(fc.integer({ min: MAX_BYTES + 1, max: MAX_BYTES + 300 }), fc.boolean())
    .map(([n, m]) => text(sized(n, m))),
  fc
    .integer({ min: MAX_BYTES - 8, max: MAX_BYTES + 8 })
    .map((n) => ({ data: new Uint8Array(n), binary: true })),
);

const frameArb: fc.Arbitrary<Frame> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 200 }).map(text) },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => text(JSON.stringify(v) ?? "null")) },
  { weight: 6, arbitrary: lookalike.map((o) => text(JSON.stringify(o))) },
  { weight: 2, arbitrary: rawText.map(text) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((data) => ({ data, binary: true })) },
  {
    weight: 1,
    arbitrary: fc
      .jsonValue({ maxDepth: 2 })
      .map((v) => ({ data: Buffer.from(JSON.stringify(v) ?? ""), binary: true })),
  },
  { weight: 1, arbitrary: sizeEdge },
);

/** A valid queue for the public ladder would start a match; the idle property leaves those out. */
function startsMatch(f: Frame): boolean {
  if (f.binary) return false;
  try {
    const q = QueueMessage.safeParse(JSON.parse(f.data as string));
    return q.success && (q.data.ladder_id === undefined || q.data.ladder_id === "public");
  } catch {
    return false;
  }
}

// ---- a raw client: records every frame from the server as sent, so nothing unparseable is skipped ----

interface Reply {
  raw: string;
  binary: boolean;
}

class RawClient {
  readonly ws: WebSocket;
  readonly replies: Reply[] = [];
  closeCode: number | null = null;
  closeReason = "";
  sent = 0;
  sentOversize = false;
  private listeners: (() => void)[] = [];
  readonly opened: Promise<boolean>;
  readonly closed: Promise<number>;

  constructor(url: string, headers: Record<string, string>) {
    this.ws = new WebSocket(url, { headers });
    this.opened = new Promise((resolve) => {
      this.ws.once("open", () => resolve(true));
      this.ws.once("error", () => resolve(false));
    });
    this.closed = new Promise((resolve) => {
      this.ws.on("close", (code, reason) => {
        this.closeCode = code;
        this.closeReason = reason.toString();
        this.poke();
        resolve(code);
      });
    });
    this.ws.on("error", () => {});
    this.ws.on("message", (data: Buffer, binary: boolean) => {
      this.replies.push({ raw: data.toString("utf8"), binary });
      this.poke();
    });
  }

  send(f: Frame): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.sent++;
    if (oversize(f)) this.sentOversize = true;
    this.ws.send(f.data, { binary: f.binary });
  }

  private poke(): void {
    for (const l of this.listeners.splice(0)) l();
  }

  /** Resolves once `done()` holds (checked on every reply and on close), or after `ms`. */
  async until(done: () => boolean, ms: number): Promise<boolean> {
    const end = Date.now() + ms;
    while (!done()) {
      const left = end - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.listeners.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return true;
  }

  async close(): Promise<void> {
    if (this.closeCode === null) this.ws.close();
    await Promise.race([this.closed, new Promise((r) => setTimeout(r, 2_000))]);
    if (this.closeCode === null) this.ws.terminate();
  }
}

// ---- shared bookkeeping ----

const tally = {
  framesSent: 0,
  replies: 0,
  errorsByCode: new Map<string, number>(),
  closes: new Map<string, number>(),
  fuzzMatches: 0,
  cleanMatches: 0,
  /** Most matches seen playing ticks at once while the fuzzers ran. */
  maxPlaying: 0,
};
const problems: string[] = [];

/** Every server frame must be a JSON text message that validates against ServerMessage. */
function checkReply(r: Reply, who: string): Msg | null {
  tally.replies++;
  if (r.binary) {
    problems.push(`${who}: binary frame from the server`);
    return null;
  }
  let m: unknown;
  try {
    m = JSON.parse(r.raw);
  } catch {
    problems.push(`${who}: reply is not JSON: ${r.raw.slice(0, 200)}`);
    return null;
  }
  const v = ServerMessage.safeParse(m);
  if (!v.success) {
    problems.push(
      `${who}: reply fails ServerMessage: ${r.raw.slice(0, 300)} (${v.error.issues[0]?.message})`,
    );
    return null;
  }
  const msg = m as Msg;
  if (msg.type === "error") {
    if (
      typeof msg.code !== "string" ||
      msg.code === "" ||
      typeof msg.message !== "string" ||
      msg.message === ""
    )
      problems.push(`${who}: error without code and message: ${r.raw}`);
    tally.errorsByCode.set(msg.code as string, (tally.errorsByCode.get(msg.code as string) ?? 0) + 1);
  }
  return msg;
}

function parsed(r: Reply): Msg | null {
  try {
    return r.binary ? null : (JSON.parse(r.raw) as Msg);
  } catch {
    return null;
  }
}

function noteClose(code: number | null, reason: string): void {
  const k = `${code} ${reason}`;
  tally.closes.set(k, (tally.closes.get(k) ?? 0) + 1);
}

let srv: TestServer;
const tokens = new Map<string, string>();
const OWNER = "fuzzers"; // one owner: fuzzers and the clean bot never meet, every match is against a house bot

beforeAll(async () => {
  srv = await startServer(
    { tickMs: TICK_MS, startupMs: 1_000, reconnectGraceMs: 500, workers: 2 },
    { houseWaitMs: 0 },
  );
  const names = [
    ...Array.from({ length: 8 }, (_, i) => `idle-${i}`),
    ...Array.from({ length: 8 }, (_, i) => `label-${i}`),
    ...Array.from({ length: IN_MATCH_FUZZERS }, (_, i) => `inmatch-${i}`),
    "flooder",
    "clean",
    "after",
  ];
  for (const n of names) tokens.set(n, await srv.register(n, OWNER));
});
afterAll(async () => {
  await srv?.stop();
});

const auth = (name: string) => ({ authorization: `Bearer ${tokens.get(name)}` });

// ---- background actors ----

/** Plays matches against house bots and answers each observation with 0-3 fuzz frames (sometimes a turn). */
async function inMatchFuzzer(i: number, frames: Frame[], stop: () => boolean): Promise<void> {
  const name = `inmatch-${i}`;
  let k = 0;
  const nextFrame = () => frames[k++ % frames.length]!;
  let queuedAt = 0;
  while (!stop()) {
    const c = new RawClient(srv.wsUrl, auth(name));
    if (!(await c.opened)) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    let seen = 0;
    let inMatch = false;
    const queue = () => {
      queuedAt = Date.now();
      c.send(text(JSON.stringify({ type: "queue", version: `fz${i}` })));
    };
    queue();
    while (!stop() && c.closeCode === null) {
      await c.until(() => c.replies.length > seen || c.closeCode !== null, 500);
      for (; seen < c.replies.length; seen++) {
        const m = checkReply(c.replies[seen]!, name);
        if (!m) continue;
        if (m.type === "error" && m.code === "match_aborted")
          problems.push(`${name}: match aborted: ${m.message}`);
        if (m.type === "hello") {
          inMatch = true;
          // Mostly ready; sometimes junk first, which the startup phase ignores.
          if (k % 5 === 0) c.send(nextFrame());
          if (k % 17 !== 0) c.send(text('{"type":"ready"}'));
          k++;
        } else if (m.type === "observation") {
          const n = k % 4;
          for (let j = 0; j < n; j++) {
            let f = nextFrame();
            // Oversize frames (the socket is cut with 1009, the bot resumes) only now and then.
            if (oversize(f) && k % 7 !== 0) f = text("{}");
            c.send(f);
          }
          if (k % 3 === 0) c.send(text(JSON.stringify({ type: "turn", tick: m.tick })));
          k++;
        } else if (m.type === "end") {
          inMatch = false;
          tally.fuzzMatches++;
          if (!EndMessage.safeParse(m).success) problems.push(`${name}: bad end ${JSON.stringify(m)}`);
          queue();
        }
      }
      // A fuzz `leave` or a version refusal may have undone the queue: queue again when nothing happens.
      if (!inMatch && Date.now() - queuedAt > 2_000) queue();
    }
    tally.framesSent += c.sent;
    if (c.closeCode !== null) {
      noteClose(c.closeCode, c.closeReason);
      if (!(c.closeCode === 1009 && c.sentOversize))
        problems.push(`${name}: closed by the server with ${c.closeCode} ${c.closeReason}`);
    } else await c.close();
  }
}

/** Floods while idle: 50 messages a second are answered, twice that closes the socket with 1008. */
async function flooder(stop: () => boolean): Promise<void> {
  while (!stop()) {
    const c = new RawClient(srv.wsUrl, auth("flooder"));
    if (!(await c.opened)) continue;
    for (let i = 0; i < 150; i++) c.send(text(i % 2 ? '{"type":"ping"}' : "not json"));
    tally.framesSent += c.sent;
    await c.until(() => c.closeCode !== null, 5_000);
    noteClose(c.closeCode, c.closeReason);
    if (c.closeCode !== 1008 || c.closeReason !== "rate_limited")
      problems.push(`flooder: expected close 1008 rate_limited, got ${c.closeCode} ${c.closeReason}`);
    const msgs = c.replies.map((r) => checkReply(r, "flooder"));
    const limited = msgs.filter((m) => m?.type === "error" && m.code === "rate_limited").length;
    const schema = msgs.filter((m) => m?.type === "error" && m.code === "schema").length;
    if (schema !== 50 || limited !== 1)
      problems.push(`flooder: expected 50 schema errors and 1 rate_limited, got ${schema} and ${limited}`);
    await c.close();
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Bad credentials on the opening handshake: one error, then close 1008 (SPEC 7.2). */
async function badCredentials(stop: () => boolean): Promise<void> {
  const cases: [Record<string, string>, string][] = [
    [{}, "missing_authorization"],
    [{ authorization: "Bearer bt_not-a-real-token" }, "invalid_token"],
    [{ authorization: "Basic dXNlcjpwYXNz" }, "missing_authorization"],
    [{ authorization: "Bearer" }, "missing_authorization"],
    [{ authorization: `Bearer ${"z".repeat(3000)}` }, "invalid_token"],
  ];
  let i = 0;
  while (!stop()) {
    const [headers, code] = cases[i++ % cases.length]!;
    const c = new RawClient(srv.wsUrl, headers);
    if (!(await c.opened)) {
      problems.push(`bad credentials: the upgrade itself failed for ${JSON.stringify(headers).slice(0, 60)}`);
      continue;
    }
    c.send(text('{"type":"queue","version":"v1"}'));
    await c.until(() => c.closeCode !== null, 5_000);
    noteClose(c.closeCode, c.closeReason);
    const msgs = c.replies.map((r) => checkReply(r, "bad-credentials"));
    if (c.closeCode !== 1008 || msgs.length !== 1 || msgs[0]?.type !== "error" || msgs[0]?.code !== code)
      problems.push(
        `bad credentials (${code}): got close ${c.closeCode} and ${JSON.stringify(c.replies.map((r) => r.raw))}`,
      );
    await c.close();
    await new Promise((r) => setTimeout(r, 150));
  }
}

interface CleanResult {
  end: Msg;
  bot: string;
}

/** A well-behaved bot: every observation is valid and answered at once with a legal move. */
async function cleanMatch(name: string): Promise<CleanResult> {
  const bot = new BotClient(srv.wsUrl, tokens.get(name)!);
  await bot.open();
  bot.send({ type: "queue", version: "clean-1" });
  let badObs = 0;
  const end = await bot.playUntilEnd((o) => {
    if (!ObservationMessage.safeParse(o).success) badObs++;
    return { type: "turn", tick: o.tick, move: (o.moves as { dir: string }[])[0]?.dir };
  }, 60_000);
  bot.close();
  await bot.closed();
  expect(badObs).toBe(0);
  return { end, bot: name };
}

async function checkCleanMatch({ end, bot }: CleanResult): Promise<void> {
  expect(EndMessage.safeParse(end).error).toBeUndefined();
  expect(["last_standing", "timeout_hp", "timeout_damage", "timeout_draw", "double_knockout"]).toContain(
    end.reason,
  );
  const stats = MatchStats.parse(end.stats);
  expect(stats.ticks).toBe(end.final_tick);
  expect(stats.winner).toBe(end.winner);
  expect(stats.reason).toBe(end.reason);
  const me = stats.fighters.find((f) => f.name === bot)!;
  expect(me).toBeDefined();
  expect(me.disqualified).toBe(false);
  expect(me.refused_turns).toBe(0);
  const id = end.match_id as string;
  const row = await srv.get<Record<string, unknown>>(`/api/matches/${id}`);
  expect(row.status).toBe(200);
  expect(row.body).toMatchObject({ id, final_tick: end.final_tick, reason: end.reason, voided: false });
  const stored = await srv.get<Record<string, unknown>>(`/api/matches/${id}/stats`);
  expect(stored.status).toBe(200);
  expect(stored.body).toEqual({ ...stats, match_id: id });
  const res = await fetch(`${srv.url}/replays/${id}.jsonl.gz`);
  expect(res.status).toBe(200);
  const v = verifyReplay(new Uint8Array(await res.arrayBuffer()));
  expect(v).toEqual({ ok: true, matchId: id, ticks: end.final_tick, winner: end.winner, reason: end.reason });
}

// ---- the tests ----

describe("protocol fuzz against the live server", () => {
  it("random and malformed frames from many connections always get SPEC answers and corrupt nothing", async () => {
    let stopping = false;
    const stop = () => stopping;
    const stream = fc.sample(frameArb, { numRuns: 4_000, seed: SEED + 1 });
    const actors = [
      ...Array.from({ length: IN_MATCH_FUZZERS }, (_, i) => inMatchFuzzer(i, stream.slice(i * 1000), stop)),
      flooder(stop),
      badCredentials(stop),
    ];
    const sampler = setInterval(() => {
      const playing = [...srv.app.ctx.matches.values()].filter((m) => m.playing).length;
      tally.maxPlaying = Math.max(tally.maxPlaying, playing);
    }, 20);
    const clean: CleanResult[] = [];
    const cleanLoop = (async () => {
      while (!stopping) {
        clean.push(await cleanMatch("clean"));
        tally.cleanMatches++;
      }
    })();

    // Idle connections: each run sends a batch on a fresh connection (so the idle rate limit, 50 a second,
    // is never reached) and expects exactly one answer per frame, or close 1009 at an oversize frame.
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(frameArb, { minLength: 1, maxLength: 45 }), async (batch) => {
        const frames = batch.filter((f) => !startsMatch(f));
        const cut = frames.findIndex(oversize);
        const sending = cut >= 0 ? frames.slice(0, cut + 1) : frames;
        const name = `idle-${run++ % 8}`;
        const c = new RawClient(srv.wsUrl, auth(name));
        expect(await c.opened).toBe(true);
        for (const f of sending) c.send(f);
        tally.framesSent += c.sent;
        const answered = cut >= 0 ? cut : sending.length;
        if (cut >= 0) await c.until(() => c.closeCode !== null, 5_000);
        else await c.until(() => c.replies.length >= answered || c.closeCode !== null, 5_000);
        const msgs = c.replies.map((r) => checkReply(r, name));
        if (cut >= 0) {
          noteClose(c.closeCode, c.closeReason);
          expect(c.closeCode, "an oversize frame closes the socket with 1009").toBe(1009);
          expect(msgs.length).toBeLessThanOrEqual(answered);
        } else {
          expect(c.closeCode, `closed by the server: ${c.closeReason}`).toBeNull();
          // Give stray extra replies a moment to show up.
          await new Promise((r) => setTimeout(r, 20));
          expect(c.replies.length, "one answer per frame").toBe(answered);
        }
        for (const m of msgs) {
          expect(m?.type).toBe("error");
          expect(["schema", "invalid_version", "unknown_ladder", "not_queued"]).toContain(m?.code);
        }
        await c.close();
        expect(problems).toEqual([]);
      }),
      { numRuns: IDLE_RUNS, seed: SEED, endOnFailure: true },
    );

    // Let the background actors run a little longer, then stop them and wait for every match to finish.
    while (tally.cleanMatches < 2) await new Promise((r) => setTimeout(r, 200));
    stopping = true;
    await Promise.all(actors);
    await cleanLoop;
    clearInterval(sampler);
    for (let i = 0; i < 100 && srv.app.ctx.matches.size > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(srv.app.ctx.matches.size).toBe(0);

    console.log(
      `fuzz: ${tally.framesSent} frames sent, ${tally.replies} replies checked, ${tally.fuzzMatches} fuzzed matches, ${tally.cleanMatches} clean matches, at most ${tally.maxPlaying} playing at once; errors ${JSON.stringify(Object.fromEntries(tally.errorsByCode))}; server closes ${JSON.stringify(Object.fromEntries(tally.closes))}`,
    );
    expect(problems).toEqual([]);
    expect(tally.framesSent).toBeGreaterThan(2_000);
    expect(tally.fuzzMatches).toBeGreaterThan(0);

    // The clean bot's matches, played while others fuzzed, ended normally and verify.
    for (const r of clean) await checkCleanMatch(r);

    // Nothing stored is corrupt: every finished match's stats agree with its row and its replay re-simulates.
    const list =
      await srv.get<{ id: string; final_tick: number; reason: string; voided: boolean }[]>(
        "/api/matches?limit=500",
      );
    expect(list.status).toBe(200);
    expect(list.body.length).toBeGreaterThanOrEqual(tally.fuzzMatches + tally.cleanMatches);
    for (const m of list.body) {
      expect(m.reason, `match ${m.id} aborted`).not.toBe("aborted");
      const stats = await srv.get<{ ticks: number; reason: string }>(`/api/matches/${m.id}/stats`);
      if (m.voided) continue;
      expect(stats.status).toBe(200);
      expect(stats.body.ticks).toBe(m.final_tick);
      expect(stats.body.reason).toBe(m.reason);
      const res = await fetch(`${srv.url}/replays/${m.id}.jsonl.gz`);
      expect(res.status).toBe(200);
      const v = verifyReplay(new Uint8Array(await res.arrayBuffer()));
      expect(v, `replay of ${m.id}`).toMatchObject({ ok: true, ticks: m.final_tick, reason: m.reason });
    }
  }, 120_000);

  // Regression guard (found by this test): a task started with an AbortSignal got a Piscina worker of its own,
  // so each worker ran ONE match at a time and further matches waited without a hello until the runner's
  // 15 s watchdog aborted them. How many matches overlap here depends on scheduling, so that is not asserted
  // (the run prints it); the symptom, an aborted match, is refused above for every stored match, and
  // test/server/pool.test.ts pins the cause deterministically ("runs many matches on one worker at once").

  it("a queue with any 1-32 character label is answered: queued, or an error naming the label", async () => {
    // Regression guard (found by this test): a label holding U+0000 passes QueueMessage but PostgreSQL and
    // PGlite refuse the text; the queue then got no answer and the rejection was unhandled, which ends a
    // `node server/main.ts` process. It must be answered like any other label.
    let run = 0;
    const label = fc.oneof(
      fc.string({ unit: "binary", minLength: 1, maxLength: 32 }),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 8 }),
      fc.constantFrom("\u0000", "v\u0000", "\ud800", "\udfff\ud800", " ", "\u202e", "🤖".repeat(16)),
    );
    await fc.assert(
      fc.asyncProperty(label, async (version) => {
        const name = `label-${run++ % 8}`;
        const c = new RawClient(srv.wsUrl, auth(name));
        expect(await c.opened).toBe(true);
        c.send(text(JSON.stringify({ type: "queue", version })));
        // A bot whose earlier match is still in its startup window inherits it: hello comes first and the
        // queue is answered with already_queued (SPEC 3.2).
        const answer = () =>
          c.replies.map(parsed).find((m) => m?.type === "queued" || m?.type === "error") ?? null;
        await c.until(() => answer() !== null || c.closeCode !== null, 3_000);
        expect(answer(), `an answer to queue ${JSON.stringify(version)}`).not.toBeNull();
        for (const r of c.replies) checkReply(r, name);
        expect(problems).toEqual([]);
        const m = answer()!;
        if (m.type === "error")
          expect(["invalid_version", "version_retired", "already_queued"]).toContain(m.code);
        else expect(m.type).toBe("queued");
        // The bot leaves at once; a match it was already paired into ends with its forfeit.
        await c.close();
      }),
      { numRuns: 40, seed: SEED + 2, endOnFailure: true },
    );
  });

  it("the server is still up afterwards: GET /api answers and a clean bot plays a full match", async () => {
    const api = await srv.get<{ versions: { protocol: string } }>("/api");
    expect(api.status).toBe(200);
    expect(api.body.versions.protocol).toBe("0.6");
    await checkCleanMatch(await cleanMatch("after"));
  });
});
