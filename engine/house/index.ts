// The house bots (SPEC 1.6), weakest first: kiter (Easy), brawler (Medium), ts-starter (Hard), champion
// (Very hard). The ts-starter strategy is the downloadable TypeScript starter bot's own strategy.
import { starter } from "../../starters/typescript/strategy.ts";
import { brawler } from "./brawler.ts";
import { champion } from "./champion.ts";
import { kiter } from "./kiter.ts";
import type { Strategy } from "./types.ts";

export const HOUSE_BOTS: Record<string, Strategy> = {
  kiter,
  brawler,
  "ts-starter": starter,
  champion,
};

/** The house bot strategy called `name`; throws listing the valid names otherwise. */
export function houseBot(name: string): Strategy {
  const s = Object.hasOwn(HOUSE_BOTS, name) ? HOUSE_BOTS[name] : undefined;
  if (!s)
    throw new Error(
      `unknown house bot ${JSON.stringify(name)}; valid names: ${Object.keys(HOUSE_BOTS).join(", ")}`,
    );
  return s;
}
