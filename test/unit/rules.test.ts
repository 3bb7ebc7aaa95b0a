// The rules table is the single source: hash, generated docs and schemas all follow it; maps are fair.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { jsonSchemas, rulesDocument, withRulesTable } from "../../engine/docs-gen.ts";
import { EndMessage, HelloMessage, MatchStats, ObservationMessage } from "../../engine/protocol.ts";
import { canonicalJson, MAP_NAMES, parseMap, RULES, rulesHash } from "../../engine/rules.ts";
import { playMatch, strategySeat } from "../../engine/sim/play.ts";
import { RULES_HASH, VERSIONS } from "../../engine/versions.ts";
import { scriptedBot } from "../helpers/scripted-bot.ts";

const docs = new URL("../../docs/", import.meta.url);
const read = (p: string) => readFileSync(new URL(p, docs), "utf8");

describe("rules table", () => {
  it("hashes canonical JSON, so key order does not matter but every number does", () => {
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] })).toBe('{"a":[2,{"c":4,"d":3}],"b":1}');
    expect(rulesHash(JSON.parse(JSON.stringify(RULES)))).toBe(RULES_HASH);
    const changed = {
      ...RULES,
      attacks: { ...RULES.attacks, ranged: { ...RULES.attacks.ranged, damage: 13 } },
    };
    expect(rulesHash(changed)).not.toBe(RULES_HASH);
    expect(VERSIONS).toMatchObject({
      release: "0.45.0",
      engine: "0.24.0",
      protocol: "0.6",
      rules: RULES.version,
    });
  });

  it("has three 21x21 point-symmetric maps with both spawns and mirrored pickup spots", () => {
    expect(MAP_NAMES).toEqual(["arena-21", "columns-21", "pillars-21"]);
    for (const name of MAP_NAMES) {
      const map = parseMap(name);
      expect(map.rows).toHaveLength(21);
      for (const row of map.rows) expect(row).toHaveLength(21);
      for (let y = 0; y < 21; y++) {
        for (let x = 0; x < 21; x++) {
          expect(map.walls[y * 21 + x], `${name} ${x},${y}`).toBe(map.walls[(20 - y) * 21 + (20 - x)]);
          if (x === 0 || y === 0 || x === 20 || y === 20) expect(map.walls[y * 21 + x]).toBe(1);
        }
      }
      expect(map.spawns[1]).toEqual([20 - map.spawns[0][0], 20 - map.spawns[0][1]]);
      expect(map.pickupSpots.length % 2).toBe(0);
    }
  });

  it("keeps the committed schemas, rules.json and the rules.md table in step with the code", () => {
    for (const [name, schema] of Object.entries(jsonSchemas())) {
      expect(
        JSON.parse(read(`schema/${name}.json`)),
        `docs/schema/${name}.json is stale: npm run gen:docs`,
      ).toEqual(schema);
    }
    expect(JSON.parse(read("rules.json"))).toEqual(rulesDocument());
    const md = read("rules.md");
    expect(withRulesTable(md), "docs/rules.md table is stale: npm run gen:docs").toBe(md);
  });
});

describe("messages match their schemas", () => {
  it("hello, every observation, the stats and an end message validate", async () => {
    let observations = 0;
    const seat = strategySeat(scriptedBot(9));
    const checking = {
      ...seat,
      start(hello: Parameters<typeof seat.start>[0]) {
        expect(HelloMessage.safeParse(hello).error).toBeUndefined();
        return seat.start(hello);
      },
      turn(obs: Parameters<typeof seat.turn>[0], ms: number) {
        const r = ObservationMessage.safeParse(obs);
        expect(r.error).toBeUndefined();
        observations++;
        return seat.turn(obs, ms);
      },
    };
    const { match, stats } = await playMatch([checking, strategySeat(scriptedBot(10))], {
      matchId: "s",
      seed: 5,
      map: "pillars-21",
    });
    expect(observations).toBe(match.tick);
    expect(MatchStats.safeParse(stats).error).toBeUndefined();
    const end = {
      type: "end",
      match_id: match.id,
      winner: match.result!.winner,
      result: "draw",
      reason: match.result!.reason,
      final_tick: match.tick,
      stats,
      watch_url: "http://localhost/view/s",
      rating_change: null,
      ladder_id: "public",
    };
    expect(EndMessage.safeParse(end).error).toBeUndefined();
  });
});
