// Opponent requests in the matchmaker (SPEC 3.9, issue 16): a bot that asked for a house bot meets that house
// bot on its next pass, ahead of the pairing rule, while the hard limits (capacity, pacing, owner concurrency)
// still hold; a request for a house bot that is not there changes nothing; a served request is told once.
import { describe, expect, it } from "vitest";
import { World } from "../helpers/matchmaker-world.ts";

const names = (plan: { seats: { bot: { name: string } }[] }) => plan.seats.map((s) => s.bot.name).sort();

function world(requests: Map<string, string>, config = {}) {
  const w = new World({ requests, config });
  for (const h of ["kiter", "brawler", "champion"]) w.house(h);
  return w;
}

describe("opponent requests in the matchmaker", () => {
  it("pairs the bot with the house bot it asked for, once", () => {
    const requests = new Map([["ada", "kiter"]]);
    const w = world(requests);
    w.player("ada");
    const starts = w.pass();
    expect(starts).toHaveLength(1);
    expect(names(starts[0]!)).toEqual(["ada", "kiter"]);
    expect(starts[0]!.kind).toBe("competitive");
    expect(w.served).toEqual(["ada"]);
    expect(requests.size).toBe(0);
  });

  it("serves the request whichever house bot the pairing would prefer, over many seeds", () => {
    for (let i = 0; i < 20; i++) {
      const w = world(new Map([["ada", "brawler"]]));
      w.player("ada", { waitedMs: 90_000 });
      expect(names(w.pass()[0]!)).toEqual(["ada", "brawler"]);
    }
  });

  it("leaves other waiting bots to the pairing rule", () => {
    const w = world(new Map([["ada", "champion"]]));
    w.player("ada");
    w.player("bea");
    const starts = w.pass();
    expect(starts.map(names)).toContainEqual(["ada", "champion"]);
    expect(starts.some((p) => names(p).includes("bea"))).toBe(true);
    expect(w.served).toEqual(["ada"]);
  });

  it("changes nothing when the requested house bot is not in the lobby", () => {
    const w = world(new Map([["ada", "ts-starter"]]));
    w.player("ada");
    const starts = w.pass();
    expect(starts).toHaveLength(1);
    expect(names(starts[0]!)).not.toContain("ts-starter");
    expect(w.served).toEqual([]);
  });

  it("keeps the hard limits: owner concurrency and capacity hold the request back", () => {
    const busy = world(new Map([["ada", "kiter"]]), { ownerConcurrency: 1 });
    busy.player("other", { owner: "o1" });
    busy.pass();
    busy.player("ada", { owner: "o1" });
    expect(busy.pass()).toEqual([]);
    expect(busy.served).toEqual([]);

    const full = world(new Map([["ada", "kiter"]]), { maxConcurrent: 0 });
    full.player("ada");
    expect(full.pass()).toEqual([]);
    expect(full.served).toEqual([]);
  });
});
