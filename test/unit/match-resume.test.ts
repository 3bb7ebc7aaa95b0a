// Re-simulation of a journaled match (cluster failover, issue 36 part 5; pool/resume.ts): a fresh Match fed the
// journal's start and ticks reaches the state the first one was in (same observation bytes, same replay), and a
// journal it cannot follow (a hash that differs, a gap) is refused with the reason, so the node that took the
// match over abandons it as SPEC 3.3's crash rule says.
import { describe, expect, it } from "vitest";
import { Match, type TurnInput } from "../../engine/match.ts";
import { verifyReplay } from "../../engine/verify.ts";
import { obsHash } from "../../pool/obs-hash.ts";
import type { MatchResume, ResumeTick } from "../../pool/protocol.ts";
import { resimulate } from "../../pool/resume.ts";

const fighters = [
  { name: "one", display_name: "One", version: "v1" },
  { name: "two", display_name: "Two", version: "v1" },
] as [
  { name: string; display_name: string; version: string },
  { name: string; display_name: string; version: string },
];
const newMatch = () => new Match({ matchId: "resume", seed: 5, map: "arena-21", fighters });

function observed(m: Match, f: number): Uint8Array {
  const buf = new Uint8Array(256 * 1024);
  return buf.slice(0, m.writeObservation(f, buf, 0));
}

/** Plays `n` ticks as a server does, journaling each tick as match-journal.ts does. */
function journaled(n: number): { live: Match; resume: MatchResume } {
  const live = newMatch();
  const resume: MatchResume = { ready: [true, true], ticks: [] };
  const enc = new TextEncoder();
  for (let t = 0; t < n; t++) {
    const hash: [number, number] = [obsHash(observed(live, 0)), obsHash(observed(live, 1))];
    const move = { type: "turn", tick: t, move: t % 2 === 0 ? "N" : "E" };
    const inputs: ResumeTick["inputs"] = [
      { raw: null, ms: 3, bytes: enc.encode(JSON.stringify(move)) },
      t % 5 === 0 ? { idle: "timeout", ms: 100 } : { raw: { type: "turn", tick: t }, ms: 2 },
    ];
    resume.ticks.push({ tick: t, inputs, expired: 0, hash });
    live.play(
      inputs.map((i) => (i && "bytes" in i && i.bytes ? { raw: move, ms: i.ms } : i)) as [
        TurnInput,
        TurnInput,
      ],
    );
  }
  return { live, resume };
}

describe("resimulate (pool/resume.ts)", () => {
  it("brings a fresh match to the journaled state: the same observations, a replay that verifies", () => {
    const { live, resume } = journaled(40);
    const again = newMatch();
    const why = resimulate(again, resume, [true, true], (_t, inputs) => {
      again.play(inputs as [TurnInput, TurnInput]);
    });
    expect(why).toBeNull();
    expect(again.tick).toBe(live.tick);
    for (const f of [0, 1]) expect(observed(again, f)).toEqual(observed(live, f));
    again.abort("test over");
    expect(verifyReplay(again.replay.gzip())).toMatchObject({ ok: true, matchId: "resume" });
  });

  it("refuses a journal whose last observation hash differs from the re-simulation's", () => {
    const { resume } = journaled(12);
    resume.ticks.at(-1)!.hash[1] ^= 1;
    const m = newMatch();
    const why = resimulate(
      m,
      resume,
      [true, true],
      (_t, inputs) => void m.play(inputs as [TurnInput, TurnInput]),
    );
    expect(why).toMatch(/seat 1's observation of tick 11 differs/);
  });

  it("refuses a journal with a gap", () => {
    const { resume } = journaled(8);
    resume.ticks.splice(3, 1);
    const m = newMatch();
    const why = resimulate(
      m,
      resume,
      [true, true],
      (_t, inputs) => void m.play(inputs as [TurnInput, TurnInput]),
    );
    expect(why).toMatch(/the journal has tick 4 where the re-simulation is at 3/);
  });
});
