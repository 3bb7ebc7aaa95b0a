// Random matches for the property tests of the per-tick writers (observation-writer, replay-tick-writer): setups
// with random seeds, maps, names, deadlines and zones, and per-tick inputs that are mostly sensible turns with
// every kind of breakage (server idles, text that did not parse, wrong types, wrong ticks, bad parts).
import fc from "fast-check";
import { DEFAULT_DEADLINES, Match, type TurnInput } from "../../engine/match.ts";
import type { DeadlinesT, ObservationT } from "../../engine/protocol.ts";
import { DIRECTIONS, MAP_NAMES, RULES } from "../../engine/rules.ts";

/** Any UTF-16 code unit (lone surrogates included), any code point, and the characters JSON must escape. */
export const unit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  fc.constantFrom('"', "\\", "/", "\n", "\r", "\t", "\b", "\f", "\u0000", "\u001f", "\u007f", "\u2028"),
  fc.constantFrom("\ud800", "\udbff", "\udc00", "\udfff", "😀", "é", "€", "a"),
);
export const anyString = fc.string({ unit, maxLength: 40 });

/** Number forms JSON.stringify writes differently: -0, exponents both ways, int32 edges, fractions. */
export const anyNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(-0, 2 ** 31, -(2 ** 31), 2 ** 31 - 1, 1e21, 1e-7, 123e-20, 5e-324, Number.MAX_VALUE),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0.1 + 0.2, -1.5),
);

export const deadlines: fc.Arbitrary<DeadlinesT> = fc.record({
  startup_ms: fc.constant(10_000),
  // Non-integers and extremes reach tick_ms and budget_ms_left in every number form.
  tick_ms: fc.oneof(fc.constant(1000), fc.integer({ min: 0, max: 5000 }), fc.double({ min: 0, max: 1e22 })),
  match_budget_ms: fc.oneof(
    fc.constant(300_000),
    fc.integer({ min: 0, max: 20_000 }),
    fc.double({ min: 0, max: 5000, noNaN: true }),
    fc.constantFrom(1e-7, 1e21, 0.5),
  ),
  max_consecutive_failures: fc.integer({ min: 1, max: 30 }),
  reconnect_grace_ms: fc.constant(10_000),
});

export const matchSetup = fc.record({
  seed: fc.integer(),
  map: fc.constantFrom(...MAP_NAMES),
  matchId: anyString,
  names: fc.tuple(anyString, anyString),
  displayNames: fc.tuple(anyString, anyString),
  deadlines: fc.option(deadlines, { freq: 2 }),
  /** A quicker or harmless zone, so that matches also reach the zone's smallest radius alive. */
  zone: fc.option(
    fc.record({
      start_tick: fc.integer({ min: 0, max: 130 }),
      interval: fc.integer({ min: 1, max: 12 }),
      min_radius: fc.integer({ min: 0, max: 4 }),
      damage: fc.integer({ min: 0, max: 6 }),
    }),
    { freq: 2 },
  ),
  /** Text a broken or chatty bot puts in its turns: shouts, unknown directions and attacks, non-JSON. */
  texts: fc.array(anyString, { minLength: 1, maxLength: 6 }),
  inputSeed: fc.integer(),
  ticks: fc.integer({ min: 1, max: 400 }),
});

/** One seat's input for this tick: mostly sensible turns from its observation, with every kind of breakage. */
export function randomInput(r: () => number, o: ObservationT, texts: string[]): TurnInput {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const ms = r() < 0.05 ? r() * 20_000 : r() * 40;
  const roll = r();
  if (roll < 0.04) return { idle: r() < 0.5 ? "timeout" : "disconnected", ms };
  if (roll < 0.06) return { raw: pick(texts), ms }; // text that did not parse
  if (roll < 0.08) return { raw: pick([null, 7, [1, 2], { type: pick(texts) }, { type: "turn" }]), ms };
  if (roll < 0.1) return { raw: { type: "turn", tick: o.tick + 1 }, ms };
  const t: Record<string, unknown> = { type: "turn", tick: o.tick };
  const m = r();
  if (m < 0.5 && o.moves.length > 0) t.move = pick(o.moves).dir;
  else if (m < 0.7 && o.dashes.length > 0) t.dash = pick(o.dashes).dir;
  else if (m < 0.75) t.move = pick(texts);
  else if (m < 0.78) t.move = pick(DIRECTIONS);
  if (m < 0.02) t.dash = pick(DIRECTIONS); // move and dash together
  const opp = o.opponents[0]!;
  const a = r();
  const target = opp.visible && r() < 0.8 ? [opp.x, opp.y] : [Math.floor(r() * 23) - 1, Math.floor(r() * 21)];
  if (a < 0.25) t.attack = { name: "ranged", target };
  else if (a < 0.4) t.attack = { name: "frostburst", target };
  else if (a < 0.55) t.attack = { name: "repulsor" };
  else if (a < 0.58) t.attack = { name: pick(texts), target };
  else if (a < 0.6) t.attack = pick(["ranged", null, { name: "ranged", target: "3,4" }]);
  if (r() < 0.08) t.shout = r() < 0.9 ? pick(texts) : 42;
  return { raw: t, ms };
}

export type MatchSetup = typeof matchSetup extends fc.Arbitrary<infer T> ? T : never;

/** The match a setup describes. */
export function randomMatch(g: MatchSetup): Match {
  return new Match({
    matchId: g.matchId,
    seed: g.seed,
    map: g.map,
    deadlines: g.deadlines ?? DEFAULT_DEADLINES,
    rules: g.zone ? ({ ...RULES, zone: { ...RULES.zone, ...g.zone } } as unknown as typeof RULES) : RULES,
    fighters: [
      { name: g.names[0], display_name: g.displayNames[0], version: "1" },
      { name: g.names[1], display_name: g.displayNames[1], version: "1" },
    ],
  });
}
