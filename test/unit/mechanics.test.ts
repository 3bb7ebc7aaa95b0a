// Every mechanic of the rules, each in a hand-made situation played through the real engine.wasm.
import { describe, expect, it } from "vitest";
import type { GameEventT } from "../../engine/protocol.ts";
import { RULES } from "../../engine/rules.ts";
import { scenario } from "../helpers/scenario.ts";

const byType = <T extends GameEventT["type"]>(events: GameEventT[], type: T) =>
  events.filter((e): e is Extract<GameEventT, { type: T }> => e.type === type);

describe("movement", () => {
  it("lists legal moves and refuses corner cutting and walls with `blocked`", () => {
    const s = scenario({ a: [5, 5], b: [15, 15], walls: [[6, 5]] });
    const dirs = s.m.observation(s.A).moves.map((m) => m.dir);
    expect(dirs).toEqual(["N", "S", "SW", "W", "NW"]);
    const ev = s.play({ move: "E" });
    expect(byType(ev, "rejected")).toEqual([{ type: "rejected", by: s.A, part: "move", reason: "blocked" }]);
    expect(s.m.observation(s.A).self).toMatchObject({ x: 5, y: 5 });
  });

  it("dashes up to three tiles, then waits out the cooldown", () => {
    const s = scenario({ a: [5, 10], b: [15, 15] });
    expect(s.m.observation(s.A).dashes.find((d) => d.dir === "E")).toEqual({
      dir: "E",
      tile: [8, 10],
      distance: 3,
    });
    s.play({ dash: "E" });
    const o = s.m.observation(s.A);
    expect(o.self).toMatchObject({ x: 8, y: 10 });
    expect(o.self.cooldowns.dash).toBe(RULES.movement.dash.cooldown);
    expect(o.dashes).toEqual([]);
    const ev = s.play({ dash: "E" });
    expect(byType(ev, "rejected")[0]).toMatchObject({ part: "dash", reason: "not_ready" });
  });

  it("blocks both fighters stepping onto the same tile", () => {
    const s = scenario({ a: [5, 10], b: [7, 10] });
    const ev = s.play({ move: "E" }, { move: "W" });
    expect(byType(ev, "move").every((m) => m.blocked)).toBe(true);
    expect(s.m.stats().fighters[s.A]!.moves_blocked).toBe(1);
  });

  it("a dash into the other fighter rams it for collision damage", () => {
    const s = scenario({ a: [5, 10], b: [7, 10] });
    const ev = s.play({ dash: "E" });
    expect(byType(ev, "hit")).toEqual([
      { type: "hit", by: s.A, target: s.B, source: "collision", damage: RULES.collision.damage, absorbed: 0 },
    ]);
    expect(s.m.observation(s.A).self).toMatchObject({ x: 6, y: 10 });
    expect(s.m.stats().fighters[s.A]!.dealt_by_source.collision).toBe(RULES.collision.damage);
  });
});

describe("ranged", () => {
  it("hits a visible target in range", () => {
    const s = scenario({ a: [5, 10], b: [12, 10] });
    const ev = s.play({ attack: { name: "ranged", target: [12, 10] } });
    expect(byType(ev, "hit")).toEqual([
      {
        type: "hit",
        by: s.A,
        target: s.B,
        source: "ranged",
        damage: RULES.attacks.ranged.damage,
        absorbed: 0,
        ricochet: false,
      },
    ]);
    expect(s.m.observation(s.B).self.hp).toBe(RULES.fighter.hp - RULES.attacks.ranged.damage);
  });

  it("locks its aim after movement: a target that steps aside is missed", () => {
    const s = scenario({ a: [5, 10], b: [12, 10] });
    const ev = s.play({ attack: { name: "ranged", target: [12, 10] } }, { move: "N" });
    expect(byType(ev, "hit")).toEqual([]);
  });

  it("ricochets once off a wall and marks the hit", () => {
    const s = scenario({ a: [5, 3], b: [10, 3] });
    const ev = s.play({ attack: { name: "ranged", target: [7, 1] } });
    expect(byType(ev, "attack")[0]).toMatchObject({ name: "ranged", ricochet: true });
    expect(byType(ev, "hit")[0]).toMatchObject({
      source: "ranged",
      ricochet: true,
      damage: RULES.attacks.ranged.ricochet_damage,
    });
    const st = s.m.stats().fighters[s.A]!;
    expect(st.ricochets).toEqual({ bounces: 1, hits: 1, damage: RULES.attacks.ranged.ricochet_damage });
  });

  it("refuses a target out of sight with `not_visible` and hides the opponent", () => {
    const s = scenario({ a: [5, 10], b: [12, 10], walls: [[8, 10]] });
    expect(s.m.observation(s.A).opponents[0]).toMatchObject({ visible: false, x: null, y: null });
    const ev = s.play({ attack: { name: "ranged", target: [12, 10] } });
    expect(byType(ev, "rejected")[0]).toMatchObject({ by: s.A, part: "attack", reason: "not_visible" });
  });

  it("respects the cooldown", () => {
    const s = scenario({ a: [5, 10], b: [12, 10] });
    s.play({ attack: { name: "ranged", target: [12, 10] } });
    const ev = s.play({ attack: { name: "ranged", target: [12, 10] } });
    expect(byType(ev, "rejected")[0]).toMatchObject({ part: "attack", reason: "not_ready" });
  });
});

describe("frostburst", () => {
  it("spawns an area that explodes after the delay, stunning the centre and slowing the ring", () => {
    const s = scenario({ a: [5, 10], b: [9, 10] });
    const spawn = s.play({ attack: { name: "frostburst", target: [9, 10] } });
    expect(byType(spawn, "area_spawn")[0]).toMatchObject({ by: s.A, center: [9, 10], radius: 1 });
    const seen = s.m.observation(s.B);
    expect(seen.areas[0]).toMatchObject({ center: [9, 10], explodes_in: RULES.attacks.frostburst.delay - 1 });
    expect(seen.danger).toContainEqual({
      tile: [9, 10],
      source: "frostburst",
      in: RULES.attacks.frostburst.delay - 1,
    });
    s.play();
    const boom = s.play();
    expect(byType(boom, "area_explode")).toHaveLength(1);
    expect(byType(boom, "hit")[0]).toMatchObject({
      target: s.B,
      source: "frostburst",
      damage: RULES.attacks.frostburst.center_damage,
    });
    const b = s.m.observation(s.B);
    expect(b.self.stunned).toBe(RULES.attacks.frostburst.stun_ticks);
    expect(b.moves).toEqual([]);
    const ev = s.play({}, { move: "N" });
    expect(byType(ev, "rejected")[0]).toMatchObject({ by: s.B, part: "move", reason: "not_ready" });
  });

  it("refuses a cast beyond its range with `blocked`", () => {
    const s = scenario({ a: [2, 10], b: [18, 10] });
    const ev = s.play({ attack: { name: "frostburst", target: [18, 10] } });
    expect(byType(ev, "rejected")[0]).toMatchObject({ part: "attack", reason: "blocked" });
  });
});

describe("repulsor", () => {
  it("hits an adjacent fighter, ignores target and knocks it back", () => {
    const s = scenario({ a: [5, 10], b: [6, 10] });
    const ev = s.play({ attack: { name: "repulsor" } });
    expect(byType(ev, "repulse")[0]).toEqual({
      type: "repulse",
      by: s.A,
      target: s.B,
      from: [6, 10],
      to: [6 + RULES.attacks.repulsor.knockback, 10],
      wall_slam: false,
    });
    expect(s.m.observation(s.B).self.hp).toBe(RULES.fighter.hp - RULES.attacks.repulsor.damage);
  });

  it("slams into a wall for extra damage and a stun", () => {
    const s = scenario({ a: [17, 10], b: [18, 10] });
    const ev = s.play({ attack: { name: "repulsor" } });
    expect(byType(ev, "repulse")[0]).toMatchObject({ to: [19, 10], wall_slam: true });
    expect(byType(ev, "hit").map((h) => h.source)).toEqual(["repulsor", "wall_slam"]);
    const b = s.m.observation(s.B);
    expect(b.self.hp).toBe(RULES.fighter.hp - RULES.attacks.repulsor.damage - RULES.wall_slam.damage);
    expect(b.self.stunned).toBe(RULES.wall_slam.stun_ticks);
    const st = s.m.stats().fighters;
    expect(st[s.B]).toMatchObject({ wall_slams: 1, knocked_back: 1, stunned: 1 });
    expect(st[s.A]!.dealt_by_source.wall_slam).toBe(RULES.wall_slam.damage);
  });

  it("shifts the launch point of a shot fired the same tick but keeps its direction", () => {
    // B shoots east at a far tile while A pushes B south: the shot leaves from B's new tile, still eastward.
    const s = scenario({ a: [5, 9], b: [5, 10] });
    const ev = s.play({ attack: { name: "repulsor" } }, { attack: { name: "ranged", target: [9, 10] } });
    expect(byType(ev, "repulse")[0]).toMatchObject({ to: [5, 12] });
    expect(byType(ev, "attack").find((a) => a.by === s.B)).toMatchObject({ from: [5, 10], target: [9, 10] });
    expect(byType(ev, "hit").filter((h) => h.source === "ranged")).toEqual([]);
  });
});

describe("pickups, zone and shout", () => {
  it("spawns mirrored pickups and lets a fighter collect one", () => {
    const s = scenario({
      a: [5, 6],
      b: [15, 14],
      pickups: [
        [5, 5],
        [15, 15],
      ],
    });
    while (s.m.tick < RULES.pickups.first_spawn_tick) s.play();
    const seen = s.m.observation(s.A).pickups;
    expect(seen.map((p) => p.tile).sort()).toEqual(
      [
        [15, 15],
        [5, 5],
      ].sort(),
    );
    const ev = s.play({ move: "N" });
    expect(byType(ev, "pickup")[0]).toMatchObject({ by: s.A, kind: seen[0]!.kind, tile: [5, 5] });
    expect(s.m.stats().fighters[s.A]!.pickups[seen[0]!.kind]).toBe(1);
    expect(s.m.observation(s.B).pickups).toHaveLength(1);
  });

  it("heals up to full hp and no further", () => {
    const s = scenario({
      a: [5, 6],
      b: [15, 14],
      pickups: [
        [5, 5],
        [15, 15],
      ],
      rules: {
        pickups: {
          ...RULES.pickups,
          kinds: {
            ...RULES.pickups.kinds,
            shield: { ...RULES.pickups.kinds.shield, weight: 0 },
            haste: { ...RULES.pickups.kinds.haste, weight: 0 },
          },
        },
      },
    });
    while (s.m.tick < RULES.pickups.first_spawn_tick) s.play();
    const ev = s.play({ move: "N" });
    expect(byType(ev, "pickup")[0]).toMatchObject({ kind: "heal", amount: 0 });
  });

  it("closes the zone and damages fighters outside it, warning first through danger", () => {
    const zone = { ...RULES.zone, start_tick: 1, interval: 1 };
    const s = scenario({ a: [1, 10], b: [10, 10], rules: { zone } });
    s.play();
    const o = s.m.observation(s.A);
    expect(o.zone).toMatchObject({ radius: 9, next_radius: 8, shrinks_in: 1 });
    expect(o.danger).toContainEqual({ tile: [1, 10], source: "zone", in: 1 });
    s.play();
    const ev = s.play();
    expect(byType(ev, "zone_damage")).toEqual([
      { type: "zone_damage", target: s.A, damage: RULES.zone.damage },
    ]);
    expect(s.m.stats().fighters[s.A]).toMatchObject({
      zone_ticks: 1,
      taken_by_source: expect.objectContaining({ zone: RULES.zone.damage }),
    });
  });

  it("shouts cleaned text to both fighters and enforces its cooldown", () => {
    const s = scenario({ a: [5, 10], b: [15, 10], walls: [[10, 10]] });
    const ev = s.play({ shout: "  good\u200b   luck  " });
    expect(byType(ev, "shout")).toEqual([{ type: "shout", by: s.A, text: "good luck" }]);
    expect(s.m.observation(s.B).events).toContainEqual({ type: "shout", by: s.A, text: "good luck" });
    expect(s.m.observation(s.A).self.cooldowns.shout).toBe(RULES.shout.cooldown);
    const again = s.play({ shout: "again" });
    expect(byType(again, "rejected")[0]).toMatchObject({ part: "shout", reason: "not_ready" });
  });
});

describe("end reasons", () => {
  const low = { fighter: { hp: 10 } };
  it("last_standing", () => {
    const s = scenario({ a: [5, 10], b: [12, 10], rules: low });
    s.play({ attack: { name: "ranged", target: [12, 10] } });
    expect(s.m.result).toEqual({ winner: s.A, reason: "last_standing", finalTick: 1 });
  });
  it("double_knockout when both fall on the same tick", () => {
    const s = scenario({ a: [5, 10], b: [12, 10], rules: low });
    s.play({ attack: { name: "ranged", target: [12, 10] } }, { attack: { name: "ranged", target: [5, 10] } });
    expect(s.m.result).toMatchObject({ winner: null, reason: "double_knockout" });
  });
  it("timeout_hp, timeout_damage and timeout_draw at the tick limit", () => {
    const hp = scenario({ a: [5, 10], b: [12, 10], rules: { tick_limit: 3 } });
    hp.play({ attack: { name: "ranged", target: [12, 10] } });
    hp.play();
    hp.play();
    expect(hp.m.result).toEqual({ winner: hp.A, reason: "timeout_hp", finalTick: 3 });

    // A's frostburst hits both equally, so hp ties, but only damage to the opponent counts as dealt.
    const dmg = scenario({ a: [5, 10], b: [7, 10], rules: { tick_limit: 3 } });
    dmg.play({ attack: { name: "frostburst", target: [6, 10] } });
    dmg.play();
    dmg.play();
    expect(dmg.m.result).toEqual({ winner: dmg.A, reason: "timeout_damage", finalTick: 3 });

    const draw = scenario({ a: [5, 10], b: [12, 10], rules: { tick_limit: 2 } });
    draw.play();
    draw.play();
    expect(draw.m.result).toEqual({ winner: null, reason: "timeout_draw", finalTick: 2 });
  });
  it("forfeit of one seat, and a void when neither is ready", () => {
    const one = scenario({ a: [5, 10], b: [12, 10] });
    one.m.forfeit([one.A]);
    expect(one.m.result).toEqual({ winner: one.B, reason: "forfeit", finalTick: 0 });
    const both = scenario({ a: [5, 10], b: [12, 10] });
    both.m.forfeit([0, 1]);
    expect(both.m.result).toEqual({ winner: null, reason: "voided", finalTick: 0 });
  });
});
