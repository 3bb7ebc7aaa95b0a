// The starter bots (starters/typescript/bot.ts, starters/python/starter_bot.py) end to end: each runs as a child
// process against the stand-in ladder socket (test/helpers/stand-in-ladder.ts) or, with --stdio, against a
// driver that plays a real Match over JSON lines the way the simulator's `cmd:` bridge does.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect } from "vitest";
import WebSocket from "ws";
import { houseBot } from "../../engine/house/index.ts";
import { DEFAULT_DEADLINES, Match } from "../../engine/match.ts";
import { EndMessage, QueueMessage, TurnMessage } from "../../engine/protocol.ts";
import { RULES } from "../../engine/rules.ts";
import { playMatch, strategySeat } from "../../engine/sim/play.ts";
import { itUnless } from "../helpers/skips.ts";
import {
  type BotProcess,
  StandInLadder,
  type StandInOptions,
  spawnBot,
  stdioSeat,
} from "../helpers/stand-in-ladder.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PYTHON = "/usr/bin/python3";
const pythonWebsockets = spawnSync(PYTHON, ["-c", "import websockets; print(websockets.__version__)"], {
  encoding: "utf8",
});
const hasPython = spawnSync(PYTHON, ["--version"]).status === 0;
const websocketsMissing =
  pythonWebsockets.status === 0
    ? null
    : `python3-websockets is not importable by ${PYTHON} (apt-get install python3-websockets)`;

interface Starter {
  name: string;
  command: string;
  args: string[];
  /** Socket tests need the language's WebSocket library. */
  socket: string | null;
  stdio: string | null;
}

const STARTERS: Starter[] = [
  {
    name: "typescript",
    command: process.execPath,
    args: ["--import", "tsx", `${root}starters/typescript/bot.ts`],
    socket: null,
    stdio: null,
  },
  {
    name: "python",
    command: PYTHON,
    args: [`${root}starters/python/starter_bot.py`],
    socket: websocketsMissing,
    stdio: hasPython ? null : `${PYTHON} is missing`,
  },
];

let ladder: StandInLadder | null = null;
const bots: BotProcess[] = [];
const clients: WebSocket[] = [];

afterEach(async () => {
  for (const b of bots.splice(0)) b.kill();
  for (const c of clients.splice(0)) c.terminate();
  await ladder?.close();
  ladder = null;
});

const TOKEN = "starter-token";

async function standIn(o: StandInOptions = {}): Promise<StandInLadder> {
  ladder = await StandInLadder.start({ tokens: [TOKEN], tickMs: 1000, startupMs: 5000, ...o });
  return ladder;
}

function run(s: Starter, extraArgs: string[], env: Record<string, string> = {}): BotProcess {
  const b = spawnBot(s.command, [...s.args, ...extraArgs], env);
  bots.push(b);
  return b;
}

function runAgainst(s: Starter, l: StandInLadder, env: Record<string, string> = {}): BotProcess {
  return run(s, [], { ARENA_TOKEN: TOKEN, ARENA_URL: l.url, BOT_VERSION: `${s.name}-test`, ...env });
}

/** Wraps a wait so a failure shows what the bot printed. */
async function expecting<T>(bot: BotProcess, p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- bot output ---\n${bot.output()}`);
  }
}

/** The bot's exit, or a failure showing its output if it is still running after `ms`. */
function exitWithin(bot: BotProcess, ms = 15_000): Promise<{ code: number | null }> {
  return expecting(
    bot,
    Promise.race([
      bot.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`bot still running after ${ms} ms`)), ms),
      ),
    ]),
  );
}

/** Every reply the stand-in got during matches is a valid turn answering the observation's own tick. */
function expectGoodTurns(l: StandInLadder): void {
  expect(l.turns.length).toBeGreaterThan(0);
  for (const t of l.turns) {
    expect(t.timedOut, `tick ${t.tick} timed out`).toBe(false);
    const parsed = TurnMessage.safeParse(t.raw);
    expect(parsed.success, `tick ${t.tick}: ${JSON.stringify(t.raw)}`).toBe(true);
    expect(parsed.data!.tick).toBe(t.tick);
  }
}

describe.each(STARTERS)("$name starter over the socket", (s) => {
  itUnless(s.socket)("queues, readies, plays a full match to end, then queues again", async () => {
    const l = await standIn({
      maxMatches: 1,
      // Unknown message types and server_draining must not disturb the bot.
      sendOnConnect: [
        { type: "future_message", hello: "ignore me" },
        { type: "server_draining", drain_deadline: new Date(Date.now() + 600_000).toISOString() },
      ],
    });
    const bot = runAgainst(s, l, { ARENA_LADDER: "public" });
    await expecting(
      bot,
      l.waitFor(
        "a finished match and a second queue",
        () => l.ends.length === 1 && l.from("queue").length >= 2,
        40_000,
      ),
    );

    expect(l.connections).toBe(1);
    const queues = l.from("queue");
    for (const q of queues) {
      expect(QueueMessage.parse(q.msg)).toEqual({
        type: "queue",
        version: `${s.name}-test`,
        ladder_id: "public",
      });
    }
    // The second queue comes after the end message.
    const endAt = l.sent.find((m) => (m.msg as { type: string }).type === "end")!.at;
    expect(queues[1]!.at).toBeGreaterThanOrEqual(endAt);
    expect(l.from("ready")).toHaveLength(1);
    // Only protocol messages: queue, ready and turns.
    const types = new Set(l.received.map((r) => (r.msg as { type?: string }).type));
    expect([...types].sort()).toEqual(["queue", "ready", "turn"]);

    const end = EndMessage.parse(l.ends[0]);
    expect(end.reason).not.toBe("forfeit");
    expect(end.reason).not.toBe("disqualified");
    expect(l.turns).toHaveLength(end.final_tick);
    expectGoodTurns(l);
    expect(bot.output()).toContain(`${end.match_id}`);
    expect(bot.child.exitCode).toBeNull();
  });

  itUnless(s.socket)("stops for good when the upgrade is refused with invalid_token", async () => {
    const l = await standIn();
    const bot = run(s, [], { ARENA_TOKEN: "not-a-valid-token", ARENA_URL: l.url });
    const exit = await exitWithin(bot);
    expect(exit.code).toBe(1);
    expect(l.attempts.map((a) => a.status)).toEqual([401]);
    expect(l.connections).toBe(0);
  });

  itUnless(s.socket)("stops for good on a fatal error message during a match", async () => {
    const l = await standIn({ fatalErrorAfterTicks: 3, fatalErrorCode: "suspended" });
    const bot = runAgainst(s, l);
    const exit = await exitWithin(bot);
    expect(exit.code).toBe(1);
    expect(l.turns).toHaveLength(3);
    expectGoodTurns(l);
    expect(l.attempts).toHaveLength(1);
    expect(bot.output()).toContain("suspended");
  });

  itUnless(s.socket)("stops for good when a newer connection replaces it", async () => {
    const l = await standIn();
    const bot = runAgainst(s, l);
    await expecting(
      bot,
      l.waitFor("a few ticks", () => l.turns.length >= 3),
    );
    // A second copy of the bot, same token: the server tells the first one `replaced`.
    const other = new WebSocket(l.url, { headers: { Authorization: `Bearer ${TOKEN}` } });
    clients.push(other);
    const exit = await exitWithin(bot);
    expect(exit.code).toBe(1);
    expect(l.sent.some((m) => m.conn === 1 && (m.msg as { type: string }).type === "replaced")).toBe(true);
    // Two connections: the bot's only one, and ours.
    expect(l.attempts).toHaveLength(2);
    expect(bot.output()).toContain("replaced");
  });

  itUnless(s.socket)("stops for good on `replaced` racing its turn", async () => {
    // `replaced` and the close follow an observation at once, so the bot's turn meets a closing socket; the
    // message must still be read and obeyed rather than treated as a plain drop.
    const l = await standIn({ replacedAfterTicks: 2 });
    const bot = runAgainst(s, l);
    const exit = await exitWithin(bot);
    expect(exit.code).toBe(1);
    expect(l.attempts).toHaveLength(1);
    expect(l.turns).toHaveLength(2);
    expectGoodTurns(l);
  });

  itUnless(s.socket)("reconnects after a 1012 restart with backoff 1 s then 2 s", async () => {
    // Close with 1012 at tick 3, then refuse one upgrade with 503 (server still down), then accept.
    const l = await standIn({ restartAfterTicks: 3, unavailableAfterRestart: 1, maxMatches: 2 });
    const bot = runAgainst(s, l);
    await expecting(
      bot,
      l.waitFor("queue on the second connection", () => l.from("queue").some((q) => q.conn === 2), 20_000),
    );
    const restart = l.closes.find((c) => c.code === 1012)!;
    expect(restart.by).toBe("server");
    expect(l.attempts.map((a) => a.status)).toEqual([101, 503, 101]);
    // The backoff as the bot announces it, in order: 1 s, then 2 s (doubling), never reset in between
    // since the refused upgrade was no healthy connection.
    const delays = [...bot.output().matchAll(/reconnecting in (\d+(?:\.\d+)?)s/g)].map((m) => Number(m[1]));
    expect(delays).toEqual([1, 2]);
    // And it waited at least that long before each attempt (a sleep is never shorter; no upper bound,
    // which would only measure the machine's load).
    expect(l.attempts[1]!.at - restart.at).toBeGreaterThanOrEqual(1_000 - 50);
    expect(l.attempts[2]!.at - l.attempts[1]!.at).toBeGreaterThanOrEqual(2_000 - 50);
    expect(bot.output()).toMatch(/draining/);
    expect(bot.child.exitCode).toBeNull();
  });
});

describe.each(STARTERS)("$name starter in --stdio mode", (s) => {
  itUnless(s.stdio)("plays a full match over JSON lines, then exits when stdin closes", async () => {
    const bot = run(s, ["--stdio"]);
    const lines: unknown[] = [];
    const house = houseBot("ts-starter");
    const { match, stats } = await expecting(
      bot,
      playMatch([stdioSeat(bot, `${s.name}-stdio`, lines), strategySeat(house)], {
        matchId: `stdio-${s.name}`,
        seed: 11,
        map: "arena-21",
        deadlines: { ...DEFAULT_DEADLINES, startup_ms: 5000, tick_ms: 1000 },
      }),
    );
    bot.child.stdin.end();
    const exit = await exitWithin(bot);
    expect(exit.code).toBe(0);

    const result = match.result!;
    expect(result.reason).not.toBe("forfeit");
    expect(stats.fighters[0]!.server_idles.timeout ?? 0).toBe(0);
    expect(stats.fighters[0]!.refused_turns).toBe(0);
    // ready, then one turn per tick in order, and nothing else (no queue in stdio mode).
    expect(lines[0]).toEqual({ type: "ready" });
    const turns = lines.slice(1);
    expect(turns).toHaveLength(result.finalTick);
    turns.forEach((t, tick) => {
      const parsed = TurnMessage.parse(t);
      expect(parsed.tick).toBe(tick);
    });
  });
});

describe.each(STARTERS)("$name starter's console", (s) => {
  itUnless(s.stdio)("prints each rejected part with its tick, part, reason and detail", () => {
    const m = new Match({
      matchId: `rejections-${s.name}`,
      seed: 3,
      map: "arena-21",
      rules: RULES,
      fighters: [
        { name: "me", display_name: "Me", version: "v1" },
        { name: "them", display_name: "Them", version: "v1" },
      ],
    });
    const obs = {
      ...m.observation(0),
      tick: 5,
      events: [
        { type: "rejected", by: 0, part: "move", reason: "schema", detail: 'unknown direction "sideways"' },
        {
          type: "rejected",
          by: 0,
          part: "attack",
          reason: "unknown_attack",
          detail: 'no attack named "laser"',
        },
      ],
    };
    const input = `${JSON.stringify(m.hello(0))}\n${JSON.stringify(obs)}\n`;
    const out = spawnSync(s.command, [...s.args, "--stdio"], { input, encoding: "utf8", timeout: 30_000 });
    expect(out.status).toBe(0);
    // In --stdio mode stdout is the protocol: the log lines are on stderr.
    expect(out.stderr).toContain('rejected tick 4: move schema (unknown direction "sideways")');
    expect(out.stderr).toContain('rejected tick 4: attack unknown_attack (no attack named "laser")');
    expect(out.stdout).not.toContain("rejected");
  });
});

describe("python websockets", () => {
  itUnless(websocketsMissing)("is importable from the system python", () => {
    expect(pythonWebsockets.stdout.trim()).toMatch(/^\d+\./);
  });
});
