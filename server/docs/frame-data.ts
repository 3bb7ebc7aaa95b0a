// The timing table of docs/frame-data.md, derived from the rules table so it cannot drift from the numbers
// the engine plays with. A test compares the committed table with this output; `npx tsx
// server/docs/frame-data.ts` rewrites it between its markers.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { RULES } from "../../engine/rules.ts";
import { DOCS_DIR } from "./catalog.ts";

export const FRAME_TABLE_BEGIN = "<!-- frame-data:begin (generated from the rules table) -->";
export const FRAME_TABLE_END = "<!-- frame-data:end -->";

/** Ready again on tick t + cooldown + 1 after use on tick t (SPEC rules: "A cooldown of N ..."). */
const next = (cooldown: number) => (cooldown === 0 ? "t + 1" : `t + ${cooldown + 1}`);

export function frameDataTable(): string {
  const a = RULES.attacks;
  const d = RULES.movement.dash;
  const rows: string[][] = [
    ["action", "acts (tick t = the turn you send)", "effect", "cooldown", "usable again", "blocked by"],
    ["move", "t, movement phase", `${RULES.movement.move_tiles} tile`, "0", "t + 1", "stun"],
    [
      "dash",
      "t, movement phase, one tile per sub-step",
      `up to ${d.max_tiles} tiles`,
      String(d.cooldown),
      next(d.cooldown),
      "stun, slow",
    ],
    [
      "ranged",
      "t, after movement (aim locked), flies after repulsors",
      `${a.ranged.damage} damage, range ${a.ranged.range}; ${a.ranged.ricochet_damage} after one bounce`,
      String(a.ranged.cooldown),
      next(a.ranged.cooldown),
      "stun",
    ],
    [
      "frostburst",
      `placed at the end of t, explodes at the end of t + ${a.frostburst.delay}`,
      `centre ${a.frostburst.center_damage} + stun ${a.frostburst.stun_ticks}; ring (radius ${a.frostburst.radius}) ${a.frostburst.damage} + slow ${a.frostburst.slow_ticks}; range ${a.frostburst.range}`,
      String(a.frostburst.cooldown),
      next(a.frostburst.cooldown),
      "stun",
    ],
    [
      "repulsor",
      "t, after movement, before ranged shots",
      `${a.repulsor.damage} damage to the 8 tiles around you, knock-back ${a.repulsor.knockback}`,
      String(a.repulsor.cooldown),
      next(a.repulsor.cooldown),
      "stun",
    ],
    [
      "shout",
      "t, first phase",
      `up to ${RULES.shout.max_length} characters`,
      String(RULES.shout.cooldown),
      next(RULES.shout.cooldown),
      "nothing",
    ],
    [
      "wall slam (taken)",
      "t, when a knock-back meets a wall",
      `${RULES.wall_slam.damage} damage + stun ${RULES.wall_slam.stun_ticks}`,
      "-",
      "-",
      "-",
    ],
    [
      "collision (taken)",
      "t, when a dash or knock-back meets the other fighter",
      `${RULES.collision.damage} damage`,
      "-",
      "-",
      "-",
    ],
  ];
  const line = (r: string[]) => `| ${r.join(" | ")} |`;
  return [line(rows[0]!), line(rows[0]!.map(() => "---")), ...rows.slice(1).map(line)].join("\n");
}

export function withFrameTable(markdown: string): string {
  const start = markdown.indexOf(FRAME_TABLE_BEGIN);
  const end = markdown.indexOf(FRAME_TABLE_END);
  if (start < 0 || end < start) throw new Error("docs/frame-data.md lacks the frame-data markers");
  return `${markdown.slice(0, start + FRAME_TABLE_BEGIN.length)}\n${frameDataTable()}\n${markdown.slice(end)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = join(DOCS_DIR, "frame-data.md");
  writeFileSync(file, withFrameTable(readFileSync(file, "utf8")));
  console.log(`${file}: frame-data table up to date`);
}
