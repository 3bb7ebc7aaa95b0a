// One match as the host plays it: turn validation, the engine step, fog-of-war observations, failures and
// disqualification, stats and the replay record. Used unchanged by the simulator and the server's workers,
// so both produce the same replay bytes from the same seed and turns. No clock and no I/O here: reply times
// are handed in by the caller.
import * as L from "./assembly/layout.ts";
import { decodeEvents, eventVisibleTo } from "./events.ts";
import { Engine, type EngineRules, IDLE_TURN } from "./host.ts";
import { type LastSeen, ObservationWriter } from "./observation-writer.ts";
import type {
  DeadlinesT,
  EndReason,
  GameEventT,
  HelloMessageT,
  IdleReason,
  ObservationT,
} from "./protocol.ts";
import { type ReplayFighter, ReplayRecorder } from "./replay.ts";
import { DIRECTIONS, RULES } from "./rules.ts";
import { accumulate, buildStats, FighterStatsBuilder, type RecordedStatsT } from "./stats.ts";
import { validateTurn } from "./turns.ts";
import { ENGINE_VERSION, PROTOCOL_VERSION, rulesHashOf } from "./versions.ts";

export const DEFAULT_DEADLINES: DeadlinesT = Object.freeze({
  startup_ms: 10_000,
  tick_ms: 1_000,
  match_budget_ms: 300_000,
  max_consecutive_failures: 10,
  reconnect_grace_ms: 10_000,
});

export interface MatchOptions {
  matchId: string;
  seed: number;
  map: string;
  fighters: [ReplayFighter, ReplayFighter];
  mode?: string;
  ladderId?: string;
  deadlines?: DeadlinesT;
  rules?: EngineRules;
}

/** What a fighter's seat produced this tick: a message (parsed JSON, or the raw text if it did not parse) and
 * how long it took, or an idle substituted by the server. */
export type TurnInput = { raw: unknown; ms: number } | { idle: IdleReason; ms: number };
/** A placeholder for a deferred line's turns between ticks (never recorded). */
const NO_TURN: TurnInput = Object.freeze({ idle: "timeout", ms: 0 });

export interface MatchResult {
  winner: number | null;
  reason: EndReason;
  finalTick: number;
}

export class Match {
  readonly id: string;
  readonly seed: number;
  readonly mapName: string;
  readonly fighters: [ReplayFighter, ReplayFighter];
  readonly deadlines: DeadlinesT;
  readonly mode: string;
  readonly ladderId: string;
  readonly rules: EngineRules;
  readonly replay: ReplayRecorder;
  private readonly engine: Engine;
  private readonly statBuilders: FighterStatsBuilder[];
  private readonly failures = [0, 0];
  private readonly lastSeen: LastSeen[] = [
    { x: 0, y: 0, tick: -1 },
    { x: 0, y: 0, tick: -1 },
  ];
  private lastEvents: GameEventT[] = [];
  private ended: MatchResult | null = null;
  private readonly disqualified = [false, false];
  private obsWriter: ObservationWriter | null = null;
  /** Scratch for play(): the cleaned shout text per fighter, read by decodeEvents during the call. */
  private readonly shouts: (string | null)[] = [null, null];
  /**
   * A tick line play() was asked to leave for later (see recordTick): its tick (-1: none), turns, events and
   * disqualified bits. The engine's state is read when it is written, unchanged until the next step.
   */
  private pendingTick = -1;
  private readonly pendingTurns: TurnInput[] = [NO_TURN, NO_TURN];
  private pendingEvents: GameEventT[] = [];
  private pendingDq = 0;
  /** Scratch for play(): each seat's action parts sent and refused this tick (kept, so a tick allocates none). */
  private readonly partsSent = [0, 0];
  private readonly partsRefused = [0, 0];

  constructor(o: MatchOptions) {
    this.id = o.matchId;
    this.seed = o.seed | 0;
    this.mapName = o.map;
    this.fighters = o.fighters;
    this.deadlines = o.deadlines ?? DEFAULT_DEADLINES;
    this.mode = o.mode ?? "ranked";
    this.ladderId = o.ladderId ?? "public";
    this.rules = o.rules ?? RULES;
    this.engine = new Engine(o.map, this.seed, this.rules);
    this.statBuilders = o.fighters.map((f, i) => new FighterStatsBuilder(i, f.name, f.version));
    this.replay = new ReplayRecorder({
      matchId: this.id,
      seed: this.seed,
      mode: this.mode,
      ladderId: this.ladderId,
      rules: this.rules,
      map: this.engine.map,
      fighters: this.fighters,
      deadlines: this.deadlines,
    });
    this.updateLastSeen();
  }

  get tick(): number {
    return this.engine.tick;
  }
  get over(): boolean {
    return this.ended !== null;
  }
  get result(): MatchResult | null {
    return this.ended;
  }

  /** The effective deadline for fighter f's next reply: the tick limit, or less when the budget runs low. */
  deadlineMs(f: number): number {
    const left = this.deadlines.match_budget_ms - this.statBuilders[f]!.spentMs;
    return Math.max(0, Math.min(this.deadlines.tick_ms, left));
  }

  hello(f: number): HelloMessageT {
    const map = this.engine.map;
    return {
      type: "hello",
      match_id: this.id,
      bot_id: f,
      protocol_version: PROTOCOL_VERSION,
      engine_version: ENGINE_VERSION,
      rules_hash: rulesHashOf(this.rules),
      rules: this.rules as unknown as HelloMessageT["rules"],
      map: { name: map.name, width: map.width, height: map.height, rows: map.rows },
      fighters: this.fighters.map((x, id) => ({ id, ...x })),
      deadlines: this.deadlines,
      ladder_id: this.ladderId,
      mode: this.mode,
      tick: this.engine.tick,
    };
  }

  /** The observation fighter f answers this tick, including the events it saw on the last tick. Its shape and
   * key order are written again, byte for byte, by engine/observation-writer.ts: a change here goes there too. */
  observation(f: number): ObservationT {
    const e = this.engine;
    const o = 1 - f;
    const me = e.fighter(f);
    const them = e.fighter(o);
    const region = e.observe(f);
    const sees = region[L.O_OPP_VISIBLE] !== 0;
    const moves: ObservationT["moves"] = [];
    const dashes: ObservationT["dashes"] = [];
    for (let d = 0; d < L.DIR_COUNT; d++) {
      const mx = region[L.O_MOVES + d * 2]!;
      if (mx >= 0) moves.push({ dir: DIRECTIONS[d]!, tile: [mx, region[L.O_MOVES + d * 2 + 1]!] });
      const n = region[L.O_DASHES + d * 3 + 2]!;
      if (n > 0) {
        dashes.push({
          dir: DIRECTIONS[d]!,
          tile: [region[L.O_DASHES + d * 3]!, region[L.O_DASHES + d * 3 + 1]!],
          distance: n,
        });
      }
    }
    const danger: ObservationT["danger"] = [];
    const count = region[L.O_DANGER_COUNT]!;
    for (let i = 0; i < count; i++) {
      const b = L.O_DANGER + i * L.O_DANGER_STRIDE;
      danger.push({
        tile: [region[b]!, region[b + 1]!],
        source: region[b + 2] === L.DANGER_ZONE ? "zone" : "frostburst",
        in: region[b + 3]!,
      });
    }
    const tick = e.tick;
    const zone = e.zone();
    const z = this.rules.zone;
    const seen = this.lastSeen[f]!;
    return {
      type: "observation",
      match_id: this.id,
      tick,
      tick_ms: this.deadlineMs(f),
      budget_ms_left: Math.floor(this.deadlines.match_budget_ms - this.statBuilders[f]!.spentMs),
      self: {
        id: f,
        x: me.x,
        y: me.y,
        hp: me.hp,
        shield: me.shield,
        alive: me.alive,
        stunned: me.stunned,
        slowed: me.slowed,
        cooldowns: me.cooldowns,
      },
      opponents: [
        {
          id: o,
          name: this.fighters[o]!.name,
          visible: sees,
          x: sees ? them.x : null,
          y: sees ? them.y : null,
          hp: them.hp,
          shield: them.shield,
          alive: them.alive,
          stunned: sees ? them.stunned : null,
          slowed: sees ? them.slowed : null,
          last_seen: seen.tick < 0 ? null : { tile: [seen.x, seen.y], tick: seen.tick },
        },
      ],
      moves,
      dashes,
      areas: e.areas().map((a) => ({
        kind: "frostburst" as const,
        owner: a.owner,
        center: [a.x, a.y] as [number, number],
        radius: a.radius,
        explodes_in: Math.max(0, a.explodeTick - tick),
      })),
      danger,
      pickups: e.pickups().map((p) => ({ kind: p.kind, tile: [p.x, p.y] as [number, number] })),
      zone: {
        center: [z.center[0], z.center[1]],
        radius: zone.radius,
        next_radius: zone.nextShrinkTick === null ? null : zone.radius - 1,
        shrinks_in: zone.nextShrinkTick === null ? null : Math.max(0, zone.nextShrinkTick - tick),
        damage: z.damage,
      },
      events: this.lastEvents.filter((ev) => eventVisibleTo(ev, f, sees)),
    };
  }

  /**
   * observation(f) as UTF-8 JSON, written into `out` from `at` without building the object or its string: the
   * same bytes as `TextEncoder.encode(JSON.stringify(observation(f)))`. Returns the end offset, or -1 when
   * `out` is too small (grow it and call again). The live path's serialiser (pool/worker.ts).
   */
  writeObservation(f: number, out: Uint8Array, at: number): number {
    this.obsWriter ??= new ObservationWriter(this.id, this.fighters, this.rules);
    return this.obsWriter.write(
      this.engine,
      f,
      this.deadlineMs(f),
      Math.floor(this.deadlines.match_budget_ms - this.statBuilders[f]!.spentMs),
      this.lastSeen[f]!,
      this.lastEvents,
      out,
      at,
    );
  }

  /**
   * Resolves the current tick from both seats' inputs. The array `inputs` is not kept, so a caller may reuse
   * it for the next tick; the events returned are the tick's own. With `deferLine` the tick's replay line is
   * written by the next recordTick() (or by anything else that writes the replay), so that a server can send
   * the observations first: the members of `inputs` are kept until then and must not be changed. A tick that
   * ends the match writes its line at once either way.
   */
  play(inputs: readonly [TurnInput, TurnInput], deferLine = false): GameEventT[] {
    if (this.ended) throw new Error(`match ${this.id} is over`);
    this.recordTick();
    const tick = this.engine.tick;
    const shouts = this.shouts;
    shouts[0] = shouts[1] = null;
    // The host's refusals first, then the engine's events, in one array: it is the tick's, returned and kept.
    const events: GameEventT[] = [];
    let turn0 = IDLE_TURN;
    let turn1 = IDLE_TURN;
    // Per seat: move, dash and attack parts its turn sent (-1: no turn accepted as a whole), and how many of
    // them were refused, by the host here or by the engine below.
    const sent = this.partsSent;
    const refused = this.partsRefused;
    sent[0] = sent[1] = -1;
    refused[0] = refused[1] = 0;
    for (let f = 0; f < 2; f++) {
      const input = inputs[f]!;
      const stats = this.statBuilders[f]!;
      if ("idle" in input) {
        stats.idle(input.idle, input.ms, tick);
        // A disconnected seat is on the reconnect grace, which is a time the host measures (disqualify()), not
        // a count of ticks: its idles neither add to nor break the run of failures.
        if (input.idle !== "disconnected") this.failures[f]!++;
        continue; // an idle is a stand-still turn
      }
      stats.reply(input.ms);
      const v = validateTurn(input.raw, tick);
      for (const r of v.refusals) {
        events.push({ type: "rejected", by: f, part: r.part, reason: r.reason, detail: r.detail });
        if (v.refused) stats.refusedTurn(r.reason, tick);
        else {
          stats.rejectedPart(r.reason, r.part, tick);
          if (r.part !== "shout") refused[f]!++;
        }
      }
      if (!v.refused) sent[f] = v.sent;
      this.failures[f] = v.refused ? this.failures[f]! + 1 : 0;
      if (f === 0) turn0 = v.turn;
      else turn1 = v.turn;
      shouts[f] = v.shout;
    }
    const hostEvents = events.length;
    const count = this.engine.step(turn0, turn1);
    decodeEvents(this.engine.eventRecords(), count, tick, shouts, events);
    // Engine refusals count as refused parts too (not_ready, blocked, not_visible).
    for (let i = hostEvents; i < events.length; i++) {
      const ev = events[i]!;
      if (ev.type !== "rejected") continue;
      this.statBuilders[ev.by]!.rejectedPart(ev.reason, ev.part, tick);
      if (ev.part !== "shout") refused[ev.by]!++;
    }
    // A turn that asked for something and had all of it refused did nothing: it is a refused turn too.
    for (let f = 0; f < 2; f++) {
      if (sent[f]! > 0 && refused[f]! >= sent[f]!) this.statBuilders[f]!.refusedAllParts();
    }
    accumulate(this.statBuilders, events);
    this.lastEvents = events;
    this.updateLastSeen();

    // A bit per fighter whose run of failures reached the limit with this tick.
    let dq = 0;
    if (!this.engine.over) {
      for (let f = 0; f < 2; f++) {
        if (this.failures[f]! >= this.deadlines.max_consecutive_failures) dq |= 1 << f;
      }
      if (dq !== 0) {
        for (let f = 0; f < 2; f++) {
          if ((dq & (1 << f)) === 0) continue;
          this.disqualified[f] = true;
          this.statBuilders[f]!.s.disqualified = true;
        }
        this.engine.concede(dq === 3 ? -1 : dq === 1 ? 0 : 1, "disqualified");
      }
    }
    if (deferLine && !this.engine.over) {
      this.pendingTick = tick;
      this.pendingTurns[0] = inputs[0];
      this.pendingTurns[1] = inputs[1];
      this.pendingEvents = events;
      this.pendingDq = dq;
      return events;
    }
    this.replay.tick(tick, inputs, this.engine.state(), events, dq);
    if (this.engine.over) this.finish(this.engine.winner, this.engine.reason as EndReason);
    return events;
  }

  /** Writes the replay line that play(inputs, true) left, if any; the replay is complete after it. */
  recordTick(): void {
    if (this.pendingTick < 0) return;
    const tick = this.pendingTick;
    this.pendingTick = -1;
    this.replay.tick(tick, this.pendingTurns, this.engine.state(), this.pendingEvents, this.pendingDq);
    this.pendingTurns[0] = this.pendingTurns[1] = NO_TURN; // the turns are garbage once recorded
  }

  /** A seat that never became ready forfeits before tick 0; both missing voids the match (SPEC 3.3). */
  forfeit(fighters: number[]): void {
    if (this.ended) return;
    this.recordTick();
    if (fighters.length >= 2) {
      this.replay.input({ type: "void", tick: this.engine.tick });
      this.finish(null, "voided");
      return;
    }
    const f = fighters[0]!;
    this.replay.input({ type: "forfeit", tick: this.engine.tick, fighter: f });
    this.engine.concede(f, "forfeit");
    this.finish(this.engine.winner, "forfeit");
  }

  /**
   * Disqualifies seats whose reconnect grace ran out: the host measured `reconnect_grace_ms` since their socket
   * was lost (the simulator counts the deadlines of the ticks they missed). A server input in the replay, so a
   * re-simulation gives the same end.
   */
  disqualify(fighters: number[]): void {
    if (this.ended || fighters.length === 0) return;
    this.recordTick();
    const list = [...new Set(fighters)].sort((a, b) => a - b);
    this.replay.input({ type: "disqualify", tick: this.engine.tick, fighters: list });
    for (const f of list) {
      this.disqualified[f] = true;
      this.statBuilders[f]!.s.disqualified = true;
    }
    this.engine.concede(list.length === 2 ? -1 : list[0]!, "disqualified");
    this.finish(this.engine.winner, this.engine.reason as EndReason);
  }

  /** Ends the match with no winner for a server-side cause (worker crash, shutdown); stored as voided. */
  abort(why: string): void {
    if (this.ended) return;
    this.recordTick();
    this.replay.input({ type: "abort", tick: this.engine.tick, why });
    this.finish(null, "aborted");
  }

  /** The stats with each fighter's diagnostics (publicStats() in engine/stats.ts removes those). */
  stats(): RecordedStatsT {
    const r = this.ended;
    const hp = [0, 1].map((f) => {
      const s = this.engine.fighter(f);
      return { hp: s.hp, alive: s.alive };
    });
    return buildStats(
      this.statBuilders,
      {
        map: this.mapName,
        seed: this.seed,
        ticks: this.engine.tick,
        winner: r ? r.winner : null,
        reason: r ? r.reason : null,
        matchId: this.id,
      },
      hp,
      this.deadlines,
    );
  }

  private finish(winner: number | null, reason: EndReason): void {
    this.ended = { winner, reason, finalTick: this.engine.tick };
    const f = [0, 1].map((i) => this.engine.fighter(i));
    this.replay.end({
      winner,
      reason,
      final_tick: this.engine.tick,
      hp: f.map((x) => x.hp),
      damage_dealt: f.map((x) => x.damageDealt),
      disqualified: [...this.disqualified],
    });
  }

  /** Read from the state region, not engine.fighter(): this runs every tick and allocates nothing. */
  private updateLastSeen(): void {
    const tick = this.engine.tick;
    for (let f = 0; f < 2; f++) {
      // Read before visible(), a call into the engine after which a view of its memory may be stale.
      const s = this.engine.state();
      const me = L.S_FIGHTERS + f * L.F_STRIDE;
      const them = L.S_FIGHTERS + (1 - f) * L.F_STRIDE;
      const x = s[them + L.F_X]!;
      const y = s[them + L.F_Y]!;
      if (s[them + L.F_ALIVE] !== 0 && this.engine.visible(s[me + L.F_X]!, s[me + L.F_Y]!, x, y)) {
        const seen = this.lastSeen[f]!;
        seen.x = x;
        seen.y = y;
        seen.tick = tick;
      }
    }
  }
}
