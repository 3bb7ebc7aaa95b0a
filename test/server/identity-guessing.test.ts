// The per-account guessing delay on its own (server/accounts/guessing.ts): a few free attempts, then a delay that
// doubles up to a cap, never a lockout: it fades after a quiet spell, a right password takes its attempt back,
// and emails are counted apart, in any letter case.
import { describe, expect, it } from "vitest";
import { GuessThrottle } from "../../server/accounts/guessing.ts";

const policy = { free: 3, baseMs: 1_000, maxMs: 8_000, forgetMs: 60_000 };

describe("GuessThrottle", () => {
  it("lets the free attempts through, then makes each next attempt wait a doubling delay up to the cap", () => {
    const g = new GuessThrottle(policy);
    let now = 0;
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      const w = g.wait("a@example.com", now);
      waits.push(w);
      now += w; // a patient guesser waits exactly as long as told
      g.attempt("a@example.com", now);
    }
    expect(waits).toEqual([0, 0, 0, 1_000, 2_000, 4_000, 8_000, 8_000]);
  });

  it("counts attempts sent all at once (before their passwords are checked)", () => {
    const g = new GuessThrottle(policy);
    let allowed = 0;
    for (let i = 0; i < 50; i++) {
      if (g.wait("burst@example.com", 0) === 0) {
        g.attempt("burst@example.com", 0);
        allowed++;
      }
    }
    expect(allowed).toBe(policy.free);
  });

  it("forgets after a quiet spell; a success takes its attempt back; emails are apart, case ignored", () => {
    const g = new GuessThrottle(policy);
    for (let i = 0; i < 5; i++) g.attempt("B@example.com", 0);
    expect(g.wait("b@EXAMPLE.com", 1)).toBeGreaterThan(0);
    expect(g.wait("other@example.com", 1)).toBe(0);
    expect(g.wait("b@example.com", 60_001)).toBe(0);

    for (let i = 0; i < 3; i++) g.attempt("c@example.com", 0);
    expect(g.wait("c@example.com", 0)).toBe(1_000);
    g.succeeded("c@example.com"); // the third was the owner's right password: no delay is left
    expect(g.wait("c@example.com", 0)).toBe(0);
  });

  it("tells of its own attempts and successes, and counts another node's as its own (cluster mode)", () => {
    const g = new GuessThrottle(policy);
    const told: string[] = [];
    g.tellGuesses((email, what) => told.push(`${what} ${email}`));
    g.attempt("D@example.com", 0);
    g.succeeded("d@example.com");
    expect(told).toEqual(["attempt d@example.com", "succeeded d@example.com"]);
    // Another node's attempts are not told again, and raise the delay as this node's would.
    g.guessedElsewhere("E@example.com", 3, 0, 0);
    expect(told).toHaveLength(2);
    expect(g.wait("e@example.com", 0)).toBe(1_000);
    g.guessedElsewhere("e@example.com", 0, 1, 0);
    expect(g.wait("e@example.com", 0)).toBe(0);
  });
});
