// The replay commands of arena-sim: verify (replay a file through the engine and compare), observe (a bot's view
// of one tick of a recording) and fork (play on from a tick of a recording with other seats).
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { type ReplayFighter, type ReplayHeader, readReplay } from "../replay.ts";
import { verifyReplay } from "../verify.ts";
import { type CliIo, EXIT, intOption, MAX_MESSAGE_BYTES, parse, UsageError } from "./cli-args.ts";
import { ForkError, type ForkSeat, playFork, readRecording, replayTo } from "./fork.ts";
import { type BotRunner, createRunner, parseBotSpec, type SimContext, type SimSeat } from "./seats.ts";

// ---------------------------------------------------------------- verify

export function verify(args: string[], io: CliIo): number {
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

export function observe(args: string[], io: CliIo): number {
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

export async function fork(args: string[], io: CliIo): Promise<number> {
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
