// The arena-sim command line: parses arguments (node:util parseArgs) and runs one command. Kept apart from the
// entry file (cli.ts) so tests can call main() in-process with their own output streams; it never exits the
// process, it returns the exit code.
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type ReplayFighter, type ReplayHeader, readReplay } from "../replay.ts";
import { MAP_NAMES, RULES } from "../rules.ts";
import { verifyReplay } from "../verify.ts";
import { SIMULATOR_PACKAGE, VERSIONS } from "../versions.ts";
import { ForkError, type ForkSeat, playFork, readRecording, replayTo } from "./fork.ts";
import {
  formatTable,
  type LeagueBot,
  type LeagueConfig,
  LeagueError,
  type LeagueRatings,
  leagueTable,
  openResults,
  planLeague,
  runLeague,
} from "./league.ts";
import { deadlinesFor, planMatches, runMatches, SIDES, type Side } from "./run.ts";
import {
  type BotRunner,
  BotSpecError,
  createRunner,
  houseBotNames,
  parseBotSpec,
  type SimContext,
  type SimSeat,
} from "./seats.ts";
import { formatSummary, summarize } from "./summary.ts";

export interface CliIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  cwd: string;
  fetch?: typeof fetch;
  /** The ladder's rating book, for `league` (the simulator's entry hands it in: see sim/arena-sim.ts). */
  ratings?: LeagueRatings;
  /** The script league worker threads run (the simulator's entry file). */
  workerScript?: string | URL;
}

export const EXIT = { ok: 0, failed: 1, usage: 2, outdated: 3 } as const;

/** A usage mistake: printed with a pointer to --help, exit 2. */
class UsageError extends Error {}

const MAX_MESSAGE_BYTES = 4096;

const HELP: Record<string, string> = {
  main: `arena-sim ${VERSIONS.release}: the ladder's match engine, offline (engine ${VERSIONS.engine}, rules ${VERSIONS.rules})

usage: arena-sim <command> [options]

commands:
  play      play matches between two bots and print a summary
  verify    re-simulate replay files and check them line by line
  fork      rebuild a replay at a tick and play on from there with other seats
  observe   print the observation a fighter got at a tick of a replay
  league    run a round of games among local bots and rate them as the ladder does
  check     compare this simulator with a ladder's running release and rules
  version   print the versions as JSON
  rules     print the rules table as JSON
  help      show help for a command (arena-sim help play)

exit codes: 0 ok, 1 a replay failed to verify, 2 usage or network error, 3 outdated (check)
docs: /docs/simulator on any ladder
`,
  play: `usage: arena-sim play --a <bot> --b <bot> [options]

Plays matches between two bots with the ladder's engine and prints a summary: results with a Wilson 95 %
interval, end reasons, ticks, stat averages, and each bot's errors (crashes, hangs, refused turns).

bots:
  <house bot>           ${houseBotNames().join(", ")}
  module:<path>         a .mjs/.js module (.ts with tsx) exporting createDecide(hello) or decide(obs),
                        or a default export of either; runs in a worker thread
  cmd:<command line>    a program speaking the JSON protocol over stdin/stdout, one message per line

options:
  --a <bot>             first bot (required)
  --b <bot>             second bot (required)
  --matches <n>         matches to play (default 10); seats swap every other match
  --map <name>          ${MAP_NAMES.join(", ")} or all (default all: rotate the maps)
  --seed <s>            seed of the first match (default 1); match i uses seed s+i
  --replays <dir>       write each replay to <dir>/<match_id>.jsonl.gz
  --tick-ms <ms>        per-turn deadline (default 1000, as on the ladder)
  --startup-ms <ms>     window to send ready (default 10000)
  --json                print the summary as JSON
  --quiet               no progress, no bot stderr
  -h, --help            this help
`,
  verify: `usage: arena-sim verify <replay.jsonl.gz>...

Re-simulates each replay with this engine and requires every line to match; prints
"ok <match_id>: <ticks> ticks, <winner>, <reason>" or "FAIL <file>: <what differs>". Exit 1 if any fails.
Only replays recorded with the same engine version (${VERSIONS.engine}) can be re-simulated.
`,
  fork: `usage: arena-sim fork <replay.jsonl.gz> --tick <n> --a <seat> --b <seat> [options]

Re-simulates the replay's recorded inputs up to tick n, checks every rebuilt line against the replay, then
plays on from tick n with the given seats and writes the fork's replay. --a sits in fighter 0, --b in
fighter 1 (as in the replay). A seat is a bot (as for play) or "replay", which keeps that fighter's recorded
turns (and stands still if the match outlasts the recording). Both seats "replay" rebuild the recording
byte for byte.

seats:
  replay                the fighter's recorded inputs
  <house bot>           ${houseBotNames().join(", ")}
  module:<path>         a .mjs/.js module, as for play
  cmd:<command line>    a program speaking the JSON protocol, as for play

options:
  --tick <n>            the tick to fork at (required): the first tick the new seats answer
  --a <seat>            fighter 0 from tick n (required)
  --b <seat>            fighter 1 from tick n (required)
  --out <file>          where to write the fork's replay (default <match_id>-fork-<n>.jsonl.gz)
  --json                print the result as JSON
  --quiet               no bot stderr
  -h, --help            this help

exit codes: 0 played, 1 the replay cannot be read or does not re-simulate, 2 usage error
`,
  observe: `usage: arena-sim observe <replay.jsonl.gz> --tick <n> --seat <fighter> [--pretty]

Re-simulates the replay up to tick n (checking it line by line) and prints the observation message fighter
<fighter> (0, 1, a, b or its name) was sent at tick n, as one JSON line. The replay holds no reply times, so
tick_ms and budget_ms_left are given as if every earlier reply had taken 0 ms; every other field is exact.

options:
  --tick <n>            the tick (required)
  --seat <fighter>      0 or a (fighter 0), 1 or b (fighter 1), or a fighter's name (required)
  --pretty              indent the JSON
  -h, --help            this help
`,
  league: `usage: arena-sim league --bots <bot> <bot> [<bot>...] --games <n> [options]

Plays a round of games among local bots and rates them with the ladder's own code: every pair plays n games,
each on the pair's least-played map with seats balanced (the ladder's rules), on worker threads (one per
core by default). Results go to a file as they finish; run the same command again to resume a stopped league.
Prints the ladder's table: rating, deviation, leaderboard score, 95 % interval, record.

bots: as for play (house bots, module:<path>, cmd:<command line>); at least two, each once.

options:
  --bots <bot>...       the bots (or repeat --bots <bot>)
  --games <n>           games per pair of bots (required)
  --seed <s>            seed of the first game (default 1); game i uses seed s+i
  --results <file>      results file, JSON Lines (default league-results.jsonl); resumed when it exists
  --workers <n>         worker threads (default: one per core, ${availableParallelism()} here)
  --replays <dir>       write each game's replay to <dir>/<match_id>.jsonl.gz
  --tick-ms <ms>        per-turn deadline (default 1000)
  --startup-ms <ms>     window to send ready (default 10000)
  --json                print the table as JSON
  --quiet               no progress, no bot stderr
  -h, --help            this help
`,
  check: `usage: arena-sim check --ladder <base_url>
       arena-sim check --release <release> --rules-hash <hash>

Compares this simulator (release ${VERSIONS.release}) with a ladder's running release and rules hash, fetched
from <base_url>/api, or with values you give. Prints "current" (exit 0) or "outdated: ..." with where to
download the current simulator (exit 3). A ladder that cannot be reached is exit 2.
`,
  version: `usage: arena-sim version

Prints release, engine, protocol, rules and rules_hash as JSON.
`,
  rules: `usage: arena-sim rules

Prints the rules table (the same JSON as hello.rules and /docs/rules.json).
`,
};
HELP.help = HELP.main!;

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === "--help" || command === "-h") {
      io.stdout.write(HELP.main!);
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    if (command === "--version" || command === "-v") {
      io.stdout.write(`${VERSIONS.release}\n`);
      return EXIT.ok;
    }
    if (command === "help") {
      const topic = rest[0] ?? "main";
      if (!HELP[topic]) throw new UsageError(`unknown command ${JSON.stringify(topic)}`);
      io.stdout.write(HELP[topic]!);
      return EXIT.ok;
    }
    if (!Object.hasOwn(HELP, command) || command === "main") {
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
    if (rest.includes("--help") || rest.includes("-h")) {
      io.stdout.write(HELP[command]!);
      return EXIT.ok;
    }
    switch (command) {
      case "play":
        return await play(rest, io);
      case "verify":
        return verify(rest, io);
      case "fork":
        return await fork(rest, io);
      case "observe":
        return observe(rest, io);
      case "league":
        return await league(rest, io);
      case "check":
        return await check(rest, io);
      case "version":
        parse(rest, {});
        io.stdout.write(`${JSON.stringify(VERSIONS, null, 2)}\n`);
        return EXIT.ok;
      case "rules":
        parse(rest, {});
        io.stdout.write(`${JSON.stringify(RULES, null, 2)}\n`);
        return EXIT.ok;
    }
    throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  } catch (err) {
    if (err instanceof UsageError || err instanceof BotSpecError) {
      const topic = command && Object.hasOwn(HELP, command) && command !== "help" ? ` ${command}` : "";
      io.stderr.write(`arena-sim${topic}: ${err.message}\nrun \`arena-sim${topic} --help\` for usage\n`);
      return EXIT.usage;
    }
    throw err;
  }
}

type OptionSpec = Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;

function parse<O extends OptionSpec>(args: string[], options: O, positionals = false) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: positionals });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ""));
  }
}

function intOption(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}

// ---------------------------------------------------------------- play

async function play(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, {
    a: { type: "string" },
    b: { type: "string" },
    matches: { type: "string" },
    map: { type: "string" },
    seed: { type: "string" },
    replays: { type: "string" },
    "tick-ms": { type: "string" },
    "startup-ms": { type: "string" },
    json: { type: "boolean" },
    quiet: { type: "boolean" },
  });
  if (!values.a || !values.b) throw new UsageError("play needs both --a <bot> and --b <bot>");
  const matches = intOption("matches", values.matches, 10, 1, 1_000_000);
  const seed = intOption("seed", values.seed, 1, -(2 ** 31), 2 ** 31 - 1 - matches + 1);
  const tickMs = intOption("tick-ms", values["tick-ms"], 1000, 1, 600_000);
  const startupMs = intOption("startup-ms", values["startup-ms"], 10_000, 1, 600_000);
  const map = values.map ?? "all";
  if (map !== "all" && !MAP_NAMES.includes(map)) {
    throw new UsageError(`unknown map ${JSON.stringify(map)}: use ${MAP_NAMES.join(", ")} or all`);
  }
  const json = values.json === true;
  const quiet = values.quiet === true;
  const progress = new Progress(io.stderr, quiet || json ? "off" : io.stderr.isTTY ? "tty" : "lines");
  const ctx: SimContext = {
    cwd: io.cwd,
    log: quiet ? null : (line) => progress.log(line),
    maxMessageBytes: MAX_MESSAGE_BYTES,
  };
  const specs = { a: parseBotSpec(values.a, io.cwd), b: parseBotSpec(values.b, io.cwd) };
  const runners = {} as Record<Side, BotRunner>;
  try {
    for (const side of SIDES) runners[side] = createRunner(specs[side], side.toUpperCase(), ctx);
    await Promise.all(SIDES.map((side) => runners[side].init()));
    const config = { a: values.a, b: values.b, matches, map, seed, tick_ms: tickMs, startup_ms: startupMs };
    const t0 = performance.now();
    const wins = { a: 0, b: 0 };
    const outcomes = await runMatches({
      plan: planMatches({ matches, seed, map }),
      runners,
      deadlines: deadlinesFor({ tickMs, startupMs }),
      replays: values.replays ? resolve(io.cwd, values.replays) : null,
      onMatch(o, done, total) {
        if (o.winner) wins[o.winner]++;
        progress.update(
          done,
          total,
          `${runners.a.fighter.name} ${wins.a} - ${wins.b} ${runners.b.fighter.name}`,
        );
      },
    });
    progress.done();
    const summary = summarize(config, outcomes, performance.now() - t0);
    io.stdout.write(json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
    return EXIT.ok;
  } finally {
    await Promise.all(Object.values(runners).map((r) => r.close()));
  }
}

/** Progress on stderr: one updating line on a terminal, a line per 10 % otherwise, nothing when off. */
class Progress {
  private shown = "";
  private lastDecile = 0;
  constructor(
    private readonly out: CliIo["stderr"],
    private readonly mode: "off" | "tty" | "lines",
  ) {}

  update(done: number, total: number, score: string, noun = "match"): void {
    const line = `${noun} ${done}/${total} (${score})`;
    if (this.mode === "tty") {
      this.shown = line;
      this.out.write(`\r\x1b[K${line}`);
    } else if (this.mode === "lines") {
      const decile = Math.floor((done * 10) / total);
      if (decile > this.lastDecile || done === total) {
        this.lastDecile = decile;
        this.out.write(`played ${line}\n`);
      }
    }
  }

  /** A line of bot output, printed above the progress line. */
  log(line: string): void {
    if (this.mode === "tty" && this.shown) this.out.write(`\r\x1b[K${line}\n${this.shown}`);
    else this.out.write(`${line}\n`);
  }

  done(): void {
    if (this.mode === "tty" && this.shown) this.out.write("\r\x1b[K");
    this.shown = "";
  }
}

// ---------------------------------------------------------------- verify

function verify(args: string[], io: CliIo): number {
  const { positionals } = parse(args, {}, true);
  if (positionals.length === 0) throw new UsageError("verify needs at least one replay file");
  let failed = 0;
  for (const file of positionals) {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(resolve(io.cwd, file));
    } catch (err) {
      failed++;
      io.stdout.write(
        `FAIL ${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`,
      );
      continue;
    }
    const r = verifyReplay(bytes);
    if (!r.ok) {
      failed++;
      io.stdout.write(`FAIL ${file}: ${r.error}\n`);
      continue;
    }
    const header = readReplay(bytes).lines[0] as ReplayHeader;
    const winner =
      r.winner === null ? "draw" : `winner ${header.fighters[r.winner]?.name ?? "?"} (fighter ${r.winner})`;
    io.stdout.write(`ok ${r.matchId}: ${r.ticks} ticks, ${winner}, ${r.reason}\n`);
  }
  if (positionals.length > 1)
    io.stdout.write(`${positionals.length - failed} of ${positionals.length} replays verified\n`);
  return failed > 0 ? EXIT.failed : EXIT.ok;
}

// ---------------------------------------------------------------- fork and observe

/** Reads the one replay file a fork or observe names; a file that cannot be read is a ForkError (exit 1). */
function recordingOf(positionals: string[], command: string, io: CliIo) {
  if (positionals.length !== 1) throw new UsageError(`${command} needs exactly one replay file`);
  const file = positionals[0]!;
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(resolve(io.cwd, file));
  } catch (err) {
    throw new ForkError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return readRecording(bytes);
}

function failed(command: string, err: ForkError, io: CliIo): number {
  io.stderr.write(`arena-sim ${command}: ${err.message}\n`);
  return EXIT.failed;
}

function observe(args: string[], io: CliIo): number {
  const { values, positionals } = parse(
    args,
    { tick: { type: "string" }, seat: { type: "string" }, pretty: { type: "boolean" } },
    true,
  );
  if (values.tick === undefined || values.seat === undefined)
    throw new UsageError("observe needs --tick <n> and --seat <fighter>");
  const tick = intOption("tick", values.tick, 0, 0, 1_000_000);
  try {
    const rec = recordingOf(positionals, "observe", io);
    const seat = values.seat.trim();
    const byName = rec.header.fighters.findIndex((f) => f.name === seat);
    const f = seat === "0" || seat === "a" ? 0 : seat === "1" || seat === "b" ? 1 : byName;
    if (f < 0) {
      const names = rec.header.fighters.map((x) => x.name).join(", ");
      throw new UsageError(
        `--seat must be 0, 1, a, b or a fighter's name (${names}), got ${JSON.stringify(seat)}`,
      );
    }
    const { match } = replayTo(rec, tick);
    const obs = match.observation(f);
    io.stdout.write(`${values.pretty ? JSON.stringify(obs, null, 2) : JSON.stringify(obs)}\n`);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof ForkError) return failed("observe", err, io);
    throw err;
  }
}

async function fork(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      tick: { type: "string" },
      a: { type: "string" },
      b: { type: "string" },
      out: { type: "string" },
      json: { type: "boolean" },
      quiet: { type: "boolean" },
    },
    true,
  );
  if (values.tick === undefined || !values.a || !values.b)
    throw new UsageError("fork needs --tick <n>, --a <seat> and --b <seat>");
  const tick = intOption("tick", values.tick, 0, 0, 1_000_000);
  const given = [values.a.trim(), values.b.trim()] as const;
  const ctx: SimContext = {
    cwd: io.cwd,
    log: values.quiet || values.json ? null : (line) => io.stderr.write(`${line}\n`),
    maxMessageBytes: MAX_MESSAGE_BYTES,
  };
  // Bot specs are checked before the replay is read, so a typo is a usage error whatever the file holds.
  const specs = given.map((g) => (g === "replay" ? null : parseBotSpec(g, io.cwd)));
  const runners: (BotRunner | null)[] = [null, null];
  try {
    const rec = recordingOf(positionals, "fork", io);
    const h = rec.header;
    for (const f of [0, 1]) {
      const spec = specs[f];
      if (spec) {
        runners[f] = createRunner(spec, f === 0 ? "A" : "B", ctx);
        await runners[f]!.init();
      }
    }
    const fighters = [0, 1].map((f) => {
      const r = runners[f];
      if (r) return r.fighter;
      const x = h.fighters[f]!;
      return { name: x.name, display_name: x.display_name, version: x.version };
    }) as [ReplayFighter, ReplayFighter];
    const bothReplayed = runners.every((r) => r === null);
    const forkId = `${h.match_id}-fork-${tick}`;
    // With both seats replayed the fork is the recorded match itself: same header, same id.
    const pos = replayTo(rec, tick, bothReplayed ? {} : { fighters, matchId: forkId });
    const seats = runners.map(
      (r): ForkSeat => (r ? { kind: "live", seat: r.seat(pos.match.id) } : { kind: "replay" }),
    );
    const { match, divergesAt } = await playFork(rec, pos, [seats[0]!, seats[1]!]);
    const out = resolve(io.cwd, values.out ?? `${forkId}.jsonl.gz`);
    writeFileSync(out, match.replay.gzip());
    const r = match.result!;
    const notes = seats.flatMap((s) => (s.kind === "live" ? (s.seat as SimSeat).notes : []));
    if (values.json) {
      io.stdout.write(
        `${JSON.stringify(
          {
            match_id: match.id,
            forked_from: h.match_id,
            tick,
            seats: [0, 1].map((f) => ({ fighter: f, seat: given[f], ...fighters[f] })),
            winner: r.winner,
            reason: r.reason,
            final_tick: r.finalTick,
            identical: divergesAt === null,
            diverges_at: divergesAt,
            replay: out,
            notes,
          },
          null,
          2,
        )}\n`,
      );
      return EXIT.ok;
    }
    const who = (f: number) => `${fighters[f]!.name} (${given[f] === "replay" ? "replay" : "played"})`;
    const result =
      r.winner === null
        ? `draw, ${r.reason}`
        : `winner ${fighters[r.winner]!.name} (fighter ${r.winner}), ${r.reason}`;
    io.stdout.write(
      [
        `fork of ${h.match_id} at tick ${tick}: A ${who(0)} vs B ${who(1)}`,
        `${match.id}: ${result}, final tick ${r.finalTick}`,
        divergesAt === null
          ? "the same as the recording, byte for byte"
          : `differs from the recording from line ${divergesAt.line}${divergesAt.tick === null ? "" : ` (tick ${divergesAt.tick})`}`,
        ...notes.map((n) => `note: ${n.message}`),
        `wrote ${out}`,
        "",
      ].join("\n"),
    );
    return EXIT.ok;
  } catch (err) {
    if (err instanceof ForkError) return failed("fork", err, io);
    throw err;
  } finally {
    await Promise.all(runners.map((r) => r?.close()));
  }
}

// ---------------------------------------------------------------- league

async function league(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      bots: { type: "string", multiple: true },
      games: { type: "string" },
      seed: { type: "string" },
      results: { type: "string" },
      workers: { type: "string" },
      replays: { type: "string" },
      "tick-ms": { type: "string" },
      "startup-ms": { type: "string" },
      json: { type: "boolean" },
      quiet: { type: "boolean" },
    },
    true,
  );
  // `--bots a b c`: the values after the first are positionals to parseArgs.
  const specs = [...(values.bots ?? []), ...positionals].map((s) => s.trim());
  if (specs.length < 2) throw new UsageError("league needs at least two bots: --bots <bot> <bot> ...");
  if (values.games === undefined) throw new UsageError("league needs --games <n> (games per pair of bots)");
  const dup = specs.find((s, i) => specs.indexOf(s) !== i);
  if (dup) throw new UsageError(`${JSON.stringify(dup)} is given twice: a bot cannot play itself`);
  const games = intOption("games", values.games, 1, 1, 100_000);
  const seed = intOption("seed", values.seed, 1, -(2 ** 31), 2 ** 31 - 1);
  const workers = intOption("workers", values.workers, availableParallelism(), 1, 1024);
  const tickMs = intOption("tick-ms", values["tick-ms"], 1000, 1, 600_000);
  const startupMs = intOption("startup-ms", values["startup-ms"], 10_000, 1, 600_000);
  if (!io.ratings || !io.workerScript)
    throw new Error("league needs the ladder's rating book and a worker script from the simulator's entry");
  const ratings = io.ratings;
  const quiet = values.quiet === true;
  const json = values.json === true;
  const progress = new Progress(io.stderr, quiet || json ? "off" : io.stderr.isTTY ? "tty" : "lines");
  // The bots are loaded once here, so a typo or a module that does not load is a usage error before any game.
  const ctx: SimContext = { cwd: io.cwd, log: null, maxMessageBytes: MAX_MESSAGE_BYTES };
  const runners = specs.map((s, i) => createRunner(parseBotSpec(s, io.cwd), `#${i + 1}`, ctx));
  try {
    await Promise.all(runners.map((r) => r.init()));
  } finally {
    await Promise.all(runners.map((r) => r.close()));
  }
  const taken = new Map<string, number>();
  const bots: LeagueBot[] = runners.map((r, i) => {
    // Two bots may share a name (two modules called bot.mjs): the book needs one key each.
    const n = (taken.get(r.fighter.name) ?? 0) + 1;
    taken.set(r.fighter.name, n);
    return {
      spec: specs[i]!,
      key: n === 1 ? r.fighter.name : `${r.fighter.name}#${n}`,
      house: r.spec.kind === "house",
    };
  });
  const config: LeagueConfig = {
    bots: specs,
    games,
    seed,
    tick_ms: tickMs,
    startup_ms: startupMs,
    release: VERSIONS.release,
  };
  const plan = planLeague(specs.length, games, seed);
  const resultsFile = resolve(io.cwd, values.results ?? "league-results.jsonl");
  try {
    const done = openResults(resultsFile, config, plan);
    if (done.size > 0 && !json && !quiet)
      io.stderr.write(`resuming ${resultsFile}: ${done.size} of ${plan.length} games already played\n`);
    const results = await runLeague({
      config,
      plan,
      done,
      resultsFile,
      workers,
      workerScript: io.workerScript,
      cwd: io.cwd,
      deadlines: deadlinesFor({ tickMs, startupMs }),
      replays: values.replays ? resolve(io.cwd, values.replays) : null,
      maxMessageBytes: MAX_MESSAGE_BYTES,
      quiet,
      log: (line) => progress.log(line),
      onResult: (_r, n, total) => progress.update(n, total, `${n - done.size} this run`, "game"),
    });
    progress.done();
    const list = [...results.values()].sort((a, b) => a.game - b.game);
    const rows = leagueTable(bots, list, ratings);
    const voided = list.filter((r) => r.reason === "voided" || r.reason === "aborted").length;
    if (json) {
      io.stdout.write(
        `${JSON.stringify({ simulator: VERSIONS, config, results_file: resultsFile, games_total: plan.length, games_played: list.length, voided, table: rows }, null, 2)}\n`,
      );
    } else {
      io.stdout.write(formatTable(rows, { played: list.length, total: plan.length, voided }));
    }
    return EXIT.ok;
  } catch (err) {
    if (err instanceof LeagueError) {
      io.stderr.write(`arena-sim league: ${err.message}\n`);
      return EXIT.failed;
    }
    throw err;
  }
}

// ---------------------------------------------------------------- check

async function check(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(args, {
    ladder: { type: "string" },
    release: { type: "string" },
    "rules-hash": { type: "string" },
  });
  const offline = values.release !== undefined || values["rules-hash"] !== undefined;
  if (values.ladder !== undefined && offline)
    throw new UsageError("give either --ladder or --release/--rules-hash, not both");
  if (values.ladder === undefined && !offline)
    throw new UsageError("check needs --ladder <base_url> or --release <r> --rules-hash <h>");
  let release: string | undefined = values.release;
  let rulesHash: string | undefined = values["rules-hash"];
  let base: string | null = null;
  if (values.ladder !== undefined) {
    base = values.ladder.replace(/\/+$/, "");
    if (!/^https?:\/\/[^/]/.test(base))
      throw new UsageError(`--ladder must be an http(s) address, got ${JSON.stringify(values.ladder)}`);
    const url = `${base}/api`;
    const doFetch = io.fetch ?? fetch;
    let body: unknown;
    try {
      const res = await doFetch(url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(15_000),
      });
      if (!res.ok) {
        io.stderr.write(`arena-sim check: ${url} answered HTTP ${res.status}\n`);
        return EXIT.usage;
      }
      body = await res.json();
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err as Error).message;
      io.stderr.write(`arena-sim check: cannot reach ${url}: ${why}\n`);
      return EXIT.usage;
    }
    const versions = (body as { versions?: { release?: unknown; rules_hash?: unknown } } | null)?.versions;
    if (!versions || typeof versions.release !== "string" || typeof versions.rules_hash !== "string") {
      io.stderr.write(`arena-sim check: ${url} did not return versions.release and versions.rules_hash\n`);
      return EXIT.usage;
    }
    release = versions.release;
    rulesHash = versions.rules_hash;
  }
  const sameRelease = release === undefined || release === VERSIONS.release;
  const sameRules = rulesHash === undefined || rulesHash === VERSIONS.rules_hash;
  const mine = `this simulator is ${VERSIONS.release} (rules ${VERSIONS.rules}, rules hash ${VERSIONS.rules_hash})`;
  if (sameRelease && sameRules) {
    io.stdout.write(`current: ${mine}${base ? `, the same as ${base}` : ""}\n`);
    return EXIT.ok;
  }
  const theirs = `${base ? "ladder runs" : "expected"} release ${release ?? "?"} (rules hash ${rulesHash ?? "?"})`;
  const where = base
    ? `download ${base}/download/arena-sim.mjs (or ${base}/download/${SIMULATOR_PACKAGE}-${release}-py3-none-any.whl)`
    : "download the current simulator from the ladder's /download/arena-sim.mjs";
  io.stdout.write(`outdated: ${theirs}, ${mine}; ${where}\n`);
  return EXIT.outdated;
}
