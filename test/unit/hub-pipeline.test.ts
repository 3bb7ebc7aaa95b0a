// The bot socket's per-message pipeline (server/socket/hub.ts: rate limit -> decode -> validate -> dispatch,
// one error code per failure; SPEC 6, 7.2, 8) without a server: the hub gets fake dependencies (a lobby, a
// store whose calls a test can hold, a fake running match) and a fake WebSocket for each connection, which a
// test makes send messages and close as the `ws` library would. test/server/connection.test.ts checks the same
// pipeline end to end through the real server; this file pins each decision fast enough for mutation testing.
import { EventEmitter } from "node:events";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { QueueMessage } from "../../engine/protocol.ts";
import type { Config } from "../../server/config.ts";
import type { MessageHead } from "../../server/connection/message-head.ts";
import { IDLE_MESSAGES_PER_SECOND } from "../../server/connection/rules.ts";
import { SOCKET_ERRORS } from "../../server/errors.ts";
import type { Limits } from "../../server/kernel/settings.ts";
import { Lobby, type Participant } from "../../server/lobby/lobby.ts";
import type { RunningMatch } from "../../server/runner/match-runner.ts";
import { BotHub, type HubDeps, unstorableText } from "../../server/socket/hub.ts";
import type { BotRow, Store, VersionRow } from "../../server/store/types.ts";

type Msg = { type: string; code?: string; message?: string; [k: string]: unknown };

/** A server-side `ws` socket as BotConnection and the hub use it. */
class FakeWs extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  readonly sent: Msg[] = [];
  closedWith: [number, string] | null = null;
  send(data: string | Uint8Array): void {
    this.sent.push(JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data)) as Msg);
  }
  close(code: number, reason: string): void {
    this.closedWith ??= [code, reason];
    this.readyState = 2;
  }
  terminate(): void {
    this.readyState = 3;
  }
  ping(): void {}
  /** The peer sends a message. */
  say(m: unknown): void {
    this.emit("message", Buffer.from(typeof m === "string" ? m : JSON.stringify(m)), false);
  }
  sayBinary(bytes: Uint8Array): void {
    this.emit("message", Buffer.from(bytes), true);
  }
  /** The peer is gone. */
  gone(): void {
    this.readyState = 3;
    this.emit("close", 1006, Buffer.alloc(0));
  }
  errors(): Msg[] {
    return this.sent.filter((m) => m.type === "error");
  }
}

/** Something a test can resolve later: a store call held while the test changes the world. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const bot = (id: string): BotRow => ({
  id,
  name: id,
  display_name: id,
  owner: `${id}-owner`,
  house: false,
  status: "active",
  avatar: null,
  created: "2026-01-01T00:00:00.000Z",
  account_id: null,
});

/** The store calls useVersion makes; `hold` keeps ensureVersion waiting until the test releases it. */
class FakeStore {
  versions: VersionRow[] = [];
  createdToday = 0;
  hold: ReturnType<typeof deferred<void>> | null = null;
  fail: Error | null = null;
  retired = new Set<string>();
  ensured: string[] = [];
  /** Version lookups made, the store's count of committed writes to bots and versions, and reachability. */
  lookups = 0;
  readonly botWrites = { generation: 0, onWrite() {}, bump() {} };
  readonly reachability = { reachable: true };
  asStore(): Store {
    return {
      botWrites: this.botWrites,
      reachability: this.reachability,
      version: async (_botId: string, label: string) => {
        this.lookups++;
        if (this.fail) throw this.fail;
        return this.versions.find((v) => v.label === label) ?? null;
      },
      versionsCreatedSince: async () => this.createdToday,
      ensureVersion: async (botId: string, label: string) => {
        if (this.hold) await this.hold.promise;
        this.ensured.push(label);
        const version: VersionRow = {
          bot_id: botId,
          label,
          notes: "",
          created: "2026-01-01T00:00:00.000Z",
          retired: this.retired.has(label),
        };
        return { version, created: true };
      },
    } as unknown as Store;
  }
}

/** The runner as the hub sees it: which seat a bot has, whether ticks are played, and what it was sent. */
class FakeMatch {
  playing = false;
  readonly got: [number, MessageHead, string | null][] = [];
  readonly attached: number[] = [];
  readonly detached: number[] = [];
  constructor(private readonly seats: string[]) {}
  seatOf(botId: string): number {
    return this.seats.indexOf(botId);
  }
  /** Records the seat, the head the hub read, and the bytes handed on (as text; null for a binary frame). */
  fromSocket(seat: number, head: MessageHead, bytes: Uint8Array | null): void {
    this.got.push([seat, { ...head }, bytes === null ? null : Buffer.from(bytes).toString("utf8")]);
  }
  attach(seat: number): void {
    this.attached.push(seat);
  }
  detach(seat: number): void {
    this.detached.push(seat);
  }
  get asMatch(): RunningMatch {
    return this as unknown as RunningMatch;
  }
}

interface World {
  hub: BotHub;
  lobby: Lobby;
  store: FakeStore;
  matches: Map<string, FakeMatch>;
  pokes: number;
  /** What the hub logged, as pino's JSON lines. */
  logged: Record<string, unknown>[];
  refusals: Map<string, { code: "unknown_ladder"; message: string }>;
  /** Opens an authenticated socket for bot `id`. */
  connect(id: string): Promise<FakeWs>;
  p(id: string): Participant;
}

/** Lets the hub's promise chains (token lookup, queue) run to their next wait: the fakes answer at once. */
async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

function world(): World {
  const lobby = new Lobby();
  const store = new FakeStore();
  const matches = new Map<string, FakeMatch>();
  const refusals = new Map<string, { code: "unknown_ladder"; message: string }>();
  const logged: Record<string, unknown>[] = [];
  const w: World = {
    logged,
    lobby,
    store,
    matches,
    pokes: 0,
    refusals,
    hub: new BotHub({
      config: { pingIntervalMs: 3_600_000 } as Config,
      store: store.asStore(),
      botStore: store.asStore() as unknown as HubDeps["botStore"],
      auditStore: { audit: async () => {} },
      lobby,
      log: pino({ level: "warn" }, { write: (line: string) => void logged.push(JSON.parse(line)) }),
      limits: () => ({ newVersionsPerDay: 3 }) as Limits,
      matchOf: (id) => matches.get(id)?.asMatch,
      estimatedWaitS: () => 42,
      poke: () => {
        w.pokes++;
      },
      botByToken: async (token) => bot(token),
      mayQueue: async (_bot, ladderId) => refusals.get(ladderId ?? "") ?? { ladderId: ladderId ?? "public" },
    }),
    async connect(id) {
      const ws = new FakeWs();
      // The hub's own WebSocketServer would do the HTTP upgrade; this one hands over the fake socket.
      (w.hub as unknown as { wss: unknown }).wss = {
        handleUpgrade: (_req: unknown, _socket: unknown, _head: unknown, cb: (ws: FakeWs) => void) => cb(ws),
      };
      const req = { headers: { authorization: `Bearer ${id}` }, socket: { remoteAddress: "127.0.0.1" } };
      w.hub.handleUpgrade(req as unknown as IncomingMessage, {} as Duplex, Buffer.alloc(0), "127.0.0.1");
      await settle();
      expect(w.lobby.get(id)?.conn).toBeTruthy();
      return ws;
    },
    p: (id) => lobby.get(id)!,
  };
  return w;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("outside a match", () => {
  it("queues a bot: `queued` with its version and estimated wait, lobby state waiting, and a pairing pass", async () => {
    const w = world();
    const ws = await w.connect("a");
    ws.say({ type: "queue", version: "v1" });
    await settle();
    expect(ws.sent).toEqual([{ type: "queued", version: "v1", estimated_wait_s: 42 }]);
    expect(w.p("a")).toMatchObject({
      state: "waiting",
      version: "v1",
      ladderId: "public",
      queuedAt: 1_000_000,
    });
    expect(w.pokes).toBe(1);
  });

  it("echoes ladder_id when the bot named one", async () => {
    const w = world();
    const ws = await w.connect("a");
    ws.say({ type: "queue", version: "v1", ladder_id: "spring" });
    await settle();
    expect(ws.sent).toEqual([{ type: "queued", version: "v1", estimated_wait_s: 42, ladder_id: "spring" }]);
    expect(w.p("a").ladderId).toBe("spring");
  });

  it("keeps the time a bot queued when it queues again (another version), and restarts it after a leave", async () => {
    const w = world();
    const ws = await w.connect("a");
    ws.say({ type: "queue", version: "v1" });
    await settle();
    vi.setSystemTime(1_005_000);
    ws.say({ type: "queue", version: "v2" });
    await settle();
    expect(w.p("a")).toMatchObject({ state: "waiting", version: "v2", queuedAt: 1_000_000 });
    ws.say({ type: "leave" });
    expect(w.p("a").state).toBe("idle");
    vi.setSystemTime(1_009_000);
    ws.say({ type: "queue", version: "v2" });
    await settle();
    expect(w.p("a")).toMatchObject({ state: "waiting", queuedAt: 1_009_000 });
  });

  it("answers leave when not queued with not_queued, and a leave while queued with nothing", async () => {
    const w = world();
    const ws = await w.connect("a");
    ws.say({ type: "leave" });
    expect(ws.sent).toEqual([{ type: "error", code: "not_queued", message: SOCKET_ERRORS.not_queued }]);
    ws.say({ type: "queue", version: "v1" });
    await settle();
    ws.sent.length = 0;
    ws.say({ type: "leave" });
    expect(ws.sent).toEqual([]);
    expect(w.p("a").state).toBe("idle");
  });

  it("refuses ready and turn with no match running: schema, saying which was ignored", async () => {
    const w = world();
    const ws = await w.connect("a");
    ws.say({ type: "ready" });
    ws.say({ type: "turn", tick: 0 });
    expect(ws.errors()).toEqual([
      { type: "error", code: "schema", message: expect.stringContaining("ready") },
      { type: "error", code: "schema", message: expect.stringContaining("turn") },
    ]);
    expect(ws.errors().map((e) => e.message)).toEqual([
      "no match is running: ready ignored",
      "no match is running: turn ignored",
    ]);
  });

  it("refuses anything else as schema, saying what was wrong", async () => {
    const w = world();
    const ws = await w.connect("a");
    ws.say({ type: "ping" });
    ws.say("not json");
    ws.say("null");
    ws.say("42");
    ws.say({ kind: "queue" });
    ws.sayBinary(new TextEncoder().encode(JSON.stringify({ type: "queue", version: "v1" })));
    await settle();
    expect(ws.errors().map((e) => [e.code, e.message])).toEqual([
      ["schema", 'unknown message type "ping"'],
      ["schema", "message must be a JSON object with a type"],
      ["schema", "message must be a JSON object with a type"],
      ["schema", "message must be a JSON object with a type"],
      ["schema", "message must be a JSON object with a type"],
      ["schema", "binary frames are not part of the protocol"],
    ]);
    expect(w.p("a").state).toBe("idle");
  });
});

describe("a queue message's checks", () => {
  it("refuses a bad version label as invalid_version, and other schema faults as schema with the reason", async () => {
    const w = world();
    const ws = await w.connect("a");
    for (const m of [
      { type: "queue" },
      { type: "queue", version: "" },
      { type: "queue", version: "x".repeat(33) },
      { type: "queue", version: 7 },
    ])
      ws.say(m);
    await settle();
    expect(ws.errors()).toEqual(
      Array(4).fill({ type: "error", code: "invalid_version", message: SOCKET_ERRORS.invalid_version }),
    );
    ws.sent.length = 0;
    const bad = { type: "queue", version: "v1", ladder_id: "" };
    ws.say(bad);
    await settle();
    const reason = QueueMessage.safeParse(bad).error!.issues[0]!.message;
    expect(reason).not.toBe(SOCKET_ERRORS.schema);
    expect(ws.errors()).toEqual([{ type: "error", code: "schema", message: reason }]);
    expect(w.store.ensured).toEqual([]);
  });

  it("refuses labels the database cannot store as sent (U+0000, lone surrogates), and takes any well-formed one", async () => {
    const w = world();
    const ws = await w.connect("a");
    const refused: [string, string][] = [
      ["a\u0000b", "version label must not contain U+0000"],
      ["a\ud800", "version label must be well-formed Unicode (no lone surrogates)"],
      ["\ud800b", "version label must be well-formed Unicode (no lone surrogates)"],
      ["a\udc00", "version label must be well-formed Unicode (no lone surrogates)"],
      ["\udc00\ud800", "version label must be well-formed Unicode (no lone surrogates)"],
      ["\ud83d\ude00\udc00", "version label must be well-formed Unicode (no lone surrogates)"],
    ];
    for (const [label] of refused) ws.say({ type: "queue", version: label });
    await settle();
    expect(ws.errors()).toEqual(
      refused.map(([, message]) => ({ type: "error", code: "invalid_version", message })),
    );
    ws.sent.length = 0;
    ws.say({ type: "queue", version: "v\ud83d\ude00" });
    await settle();
    expect(ws.sent).toEqual([{ type: "queued", version: "v\ud83d\ude00", estimated_wait_s: 42 }]);
  });

  it("unstorableText: null for well-formed text, a reason otherwise", () => {
    expect(unstorableText("")).toBeNull();
    expect(unstorableText("v1.2-\u00e9\ud83d\ude00\ud83d\ude00")).toBeNull();
    expect(unstorableText("\u0000")).toBe("must not contain U+0000");
    expect(unstorableText("\ud83d")).toBe("must be well-formed Unicode (no lone surrogates)");
    expect(unstorableText("\ude00")).toBe("must be well-formed Unicode (no lone surrogates)");
    expect(unstorableText("\ud83d\ud83d\ude00")).toBe("must be well-formed Unicode (no lone surrogates)");
    expect(unstorableText("\ud83d\ude00\ude00")).toBe("must be well-formed Unicode (no lone surrogates)");
  });

  it("passes on the ladder's refusal as it is", async () => {
    const w = world();
    w.refusals.set("nope", { code: "unknown_ladder", message: "no ladder named nope" });
    const ws = await w.connect("a");
    ws.say({ type: "queue", version: "v1", ladder_id: "nope" });
    await settle();
    expect(ws.sent).toEqual([{ type: "error", code: "unknown_ladder", message: "no ladder named nope" }]);
    expect(w.p("a").state).toBe("idle");
  });

  it("refuses a new version over the daily limit as quota_exceeded, naming the limit", async () => {
    const w = world();
    w.store.createdToday = 3;
    const ws = await w.connect("a");
    ws.say({ type: "queue", version: "v9" });
    await settle();
    expect(ws.sent).toEqual([
      {
        type: "error",
        code: "quota_exceeded",
        message:
          "at most 3 new versions per bot per day; reuse an existing label or wait (new_versions_per_day)",
      },
    ]);
    expect(w.p("a").state).toBe("idle");
  });

  it("refuses a retired version", async () => {
    const w = world();
    w.store.retired.add("old");
    const ws = await w.connect("a");
    ws.say({ type: "queue", version: "old" });
    await settle();
    expect(ws.sent).toEqual([
      { type: "error", code: "version_retired", message: SOCKET_ERRORS.version_retired },
    ]);
    expect(w.p("a").state).toBe("idle");
    expect(w.pokes).toBe(0);
  });

  it("queues again with the same version without a lookup until a bot or version is written (a retirement shows)", async () => {
    const w = world();
    const row: VersionRow = {
      bot_id: "a",
      label: "v1",
      notes: "",
      created: "2026-01-01T00:00:00.000Z",
      retired: false,
    };
    w.store.versions.push(row);
    const ws = await w.connect("a");
    const again = async (version: string) => {
      ws.say({ type: "leave" });
      ws.say({ type: "queue", version });
      await settle();
    };
    await again("v1");
    await again("v1");
    await again("v1");
    expect(w.store.lookups).toBe(1);
    expect(ws.sent.map((m) => m.type)).toEqual(["error", "queued", "queued", "queued"]); // the first leave: not queued
    // Another label is looked up (and then remembered instead).
    await again("v2");
    expect(w.store.lookups).toBe(2);
    // The version is retired: a committed write to versions, so the next queue looks again and is refused.
    w.store.versions[0] = { ...row, retired: true };
    w.store.botWrites.generation++;
    ws.sent.length = 0;
    await again("v1");
    expect(w.store.lookups).toBe(3);
    expect(ws.sent.at(-1)).toEqual({
      type: "error",
      code: "version_retired",
      message: SOCKET_ERRORS.version_retired,
    });
  });

  it("looks the version up again while the database is known to be unreachable, so the bot hears unavailable", async () => {
    const w = world();
    w.store.versions.push({
      bot_id: "a",
      label: "v1",
      notes: "",
      created: "2026-01-01T00:00:00.000Z",
      retired: false,
    });
    const ws = await w.connect("a");
    ws.say({ type: "queue", version: "v1" });
    await settle();
    ws.say({ type: "leave" });
    expect(w.store.lookups).toBe(1);
    // Another statement (a match's result, say) found the database unreachable.
    w.store.reachability.reachable = false;
    w.store.fail = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    ws.sent.length = 0;
    ws.say({ type: "queue", version: "v1" });
    await settle();
    expect(w.store.lookups).toBe(2);
    expect(ws.sent).toEqual([{ type: "error", code: "unavailable", message: SOCKET_ERRORS.unavailable }]);
    expect(w.p("a").state).toBe("idle");
    // Back (a statement was answered): the remembered row serves again, with no lookup.
    w.store.reachability.reachable = true;
    w.store.fail = null;
    ws.say({ type: "queue", version: "v1" });
    await settle();
    expect(w.store.lookups).toBe(2);
    expect(ws.sent.at(-1)).toMatchObject({ type: "queued", version: "v1" });
  });

  it("answers a failed queue with unavailable when the database is unreachable, internal otherwise; the bot stays idle", async () => {
    const w = world();
    const ws = await w.connect("a");
    w.store.fail = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    ws.say({ type: "queue", version: "v1" });
    await settle();
    w.store.fail = new Error("a bug");
    ws.say({ type: "queue", version: "v1" });
    await settle();
    expect(ws.sent).toEqual([
      { type: "error", code: "unavailable", message: SOCKET_ERRORS.unavailable },
      { type: "error", code: "internal", message: SOCKET_ERRORS.internal },
    ]);
    expect(w.p("a").state).toBe("idle");
    // The operator sees each failure, with the bot and the error.
    expect(w.logged.filter((l) => l.msg === "queue failed")).toEqual([
      expect.objectContaining({ bot: "a", err: expect.objectContaining({ code: "ECONNREFUSED" }) }),
      expect.objectContaining({ bot: "a", err: expect.objectContaining({ message: "a bug" }) }),
    ]);
  });
});

describe("a queue whose version lookup was overtaken", () => {
  it("does nothing when the socket closed meanwhile", async () => {
    const w = world();
    const ws = await w.connect("a");
    const p = w.p("a");
    w.store.hold = deferred<void>();
    ws.say({ type: "queue", version: "v1" });
    await settle();
    ws.gone();
    w.store.hold.resolve();
    await settle();
    expect(w.store.ensured).toEqual(["v1"]);
    expect(p.state).toBe("idle");
    expect(p.version).toBeNull();
    expect(w.pokes).toBe(0);
    expect(w.lobby.get("a")).toBeUndefined();
  });

  it("does nothing when the server closed the socket meanwhile (its close event not yet seen)", async () => {
    const w = world();
    const ws = await w.connect("a");
    w.store.hold = deferred<void>();
    ws.say({ type: "queue", version: "v1" });
    await settle();
    // A flood closes the socket: twice the per-second budget.
    for (let i = 0; i < 2 * IDLE_MESSAGES_PER_SECOND; i++) ws.say({ type: "leave" });
    expect(ws.closedWith).toEqual([1008, "rate_limited"]);
    w.store.hold.resolve();
    await settle();
    expect(w.p("a").state).toBe("idle");
    expect(w.pokes).toBe(0);
  });

  it("leaves the new connection's state alone when the bot connected again meanwhile", async () => {
    const w = world();
    const old = await w.connect("a");
    w.store.hold = deferred<void>();
    old.say({ type: "queue", version: "v1" });
    await settle();
    const fresh = await w.connect("a");
    expect(old.sent.at(-1)).toEqual({ type: "replaced" });
    expect(old.closedWith).toEqual([1000, "replaced"]);
    w.store.hold.resolve();
    await settle();
    expect(w.p("a")).toMatchObject({ state: "idle", version: null });
    expect(fresh.sent).toEqual([]);
    expect(w.pokes).toBe(0);
  });

  it("leaves a bot alone that was paired meanwhile (an inherited match)", async () => {
    const w = world();
    const ws = await w.connect("a");
    w.store.hold = deferred<void>();
    ws.say({ type: "queue", version: "v1" });
    await settle();
    w.matches.set("a", new FakeMatch(["a", "b"]));
    w.p("a").state = "playing";
    w.store.hold.resolve();
    await settle();
    expect(w.p("a")).toMatchObject({ state: "playing", version: null });
    expect(ws.sent).toEqual([]);
    expect(w.pokes).toBe(0);
  });
});

describe("in a match", () => {
  it("hands every message to the match as the bot's seat: its type and tick, and the bytes as they came", async () => {
    const w = world();
    const m = new FakeMatch(["b", "a"]);
    w.matches.set("a", m);
    const ws = await w.connect("a");
    expect(m.attached).toEqual([1]);
    expect(w.p("a").state).toBe("playing");
    ws.say({ type: "ready" });
    ws.say({ type: "turn", tick: 3 });
    ws.say("not json");
    ws.say("null");
    ws.sayBinary(new Uint8Array([123, 125]));
    ws.say('{"type":"turn","tick":3.0}'); // left to JSON.parse, which reads an integer all the same
    ws.say('{"type":"turn","tick":4,"type":"leave"}'); // the last of a duplicated key counts, as in JSON.parse
    expect(m.got).toEqual([
      [1, { type: "ready", tick: null }, '{"type":"ready"}'],
      [1, { type: "turn", tick: 3 }, '{"type":"turn","tick":3}'],
      [1, { type: "other", tick: null }, "not json"],
      [1, { type: "other", tick: null }, "null"],
      [1, { type: "other", tick: null }, null],
      [1, { type: "turn", tick: 3 }, '{"type":"turn","tick":3.0}'],
    ]);
    // The duplicated type made it a leave: answered, not passed on.
    expect(ws.sent).toEqual([
      { type: "error", code: "not_queued", message: "playing a match; leave applies to the queue only" },
    ]);
    ws.sent.length = 0;
    expect(ws.sent).toEqual([]);
  });

  it("answers queue with already_queued and leave with not_queued, not passing them on", async () => {
    const w = world();
    const m = new FakeMatch(["a", "b"]);
    w.matches.set("a", m);
    const ws = await w.connect("a");
    ws.say({ type: "queue", version: "v2" });
    ws.say({ type: "leave" });
    await settle();
    expect(ws.sent).toEqual([
      { type: "error", code: "already_queued", message: SOCKET_ERRORS.already_queued },
      { type: "error", code: "not_queued", message: "playing a match; leave applies to the queue only" },
    ]);
    expect(m.got).toEqual([]);
    expect(w.store.ensured).toEqual([]);
  });

  it("applies no per-second limit while ticks are played (the runner caps per tick), but does outside play", async () => {
    const w = world();
    const m = new FakeMatch(["a", "b"]);
    m.playing = true;
    w.matches.set("a", m);
    const ws = await w.connect("a");
    for (let i = 0; i < 3 * IDLE_MESSAGES_PER_SECOND; i++) ws.say({ type: "turn", tick: 0 });
    expect(m.got).toHaveLength(3 * IDLE_MESSAGES_PER_SECOND);
    expect(ws.closedWith).toBeNull();

    // The startup window (or the end of a match) is not play: the per-second limit applies.
    m.playing = false;
    m.got.length = 0;
    vi.setSystemTime(1_010_000);
    for (let i = 0; i < IDLE_MESSAGES_PER_SECOND + 3; i++) ws.say({ type: "ready" });
    expect(m.got).toHaveLength(IDLE_MESSAGES_PER_SECOND);
    expect(ws.errors()).toEqual([
      {
        type: "error",
        code: "rate_limited",
        message: `at most ${IDLE_MESSAGES_PER_SECOND} messages per second outside a match`,
      },
    ]);
  });

  it("drops what arrives after the server closed the socket (a flood), before its close event", async () => {
    const w = world();
    const m = new FakeMatch(["a", "b"]);
    w.matches.set("a", m);
    const ws = await w.connect("a");
    for (let i = 0; i < 2 * IDLE_MESSAGES_PER_SECOND + 1; i++) ws.say({ type: "turn", tick: 0 });
    expect(ws.closedWith).toEqual([1008, "rate_limited"]);
    const before = m.got.length;
    vi.setSystemTime(1_020_000);
    ws.say({ type: "ready" });
    expect(m.got).toHaveLength(before);
  });

  it("detaches the seat when the socket goes, and attaches the bot's next socket", async () => {
    const w = world();
    const m = new FakeMatch(["a", "b"]);
    w.matches.set("a", m);
    const ws = await w.connect("a");
    w.p("a").matches.add("m1");
    ws.gone();
    expect(m.detached).toEqual([0]);
    expect(w.p("a")).toMatchObject({ conn: null, state: "playing" });
    await w.connect("a");
    expect(m.attached).toEqual([0, 0]);
  });
});
