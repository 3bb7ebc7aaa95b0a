// The arena-sim command line: parses arguments (node:util parseArgs) and runs one command. Kept apart from the
// entry file (cli.ts) so tests can call main() in-process with their own output streams; it never exits the
// process, it returns the exit code. The help texts are help.ts, the shared option parsing cli-args.ts, and the
// replay commands (verify, observe, fork) replay-commands.ts; play, league and check are here.
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { MAP_NAMES, RULES } from "../rules.ts";
import { SIMULATOR_PACKAGE, VERSIONS } from "../versions.ts";
import { type CliIo, EXIT, intOption, MAX_MESSAGE_BYTES, parse, UsageError } from "./cli-args.ts";
import { HELP } from "./help.ts";
import {
  formatTable,
  type LeagueBot,
  type LeagueConfig,
  LeagueError,
  leagueTable,
  openResults,
  planLeague,
  runLeague,
} from "./league.ts";
import { fork, observe, verify } from "./replay-commands.ts";
import { deadlinesFor, planMatches, runMatches, SIDES, type Side } from "./run.ts";
import { type BotRunner, BotSpecError, createRunner, parseBotSpec, type SimContext } from "./seats.ts";
import { formatSummary, summarize } from "./summary.ts";

export { type CliIo, EXIT } from "./cli-args.ts";

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
