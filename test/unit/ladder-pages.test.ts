// The ladder switcher and the phase hints the pages render (server/site/ladders.ts), at fixed instants.
import { describe, expect, it } from "vitest";
import { distance, type LadderJ, ladderSwitcher, phaseHint, playedOn } from "../../server/site/ladders.ts";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const ladder = (id: string, extra: Partial<LadderJ> = {}): LadderJ => ({
  id,
  name: `${id} ladder`,
  description: "",
  enabled: true,
  visible: true,
  access: "open",
  phase: "open",
  opens_at: null,
  closes_at: null,
  leaderboard_url: `https://ladder.example/api/leaderboard?ladder=${id}`,
  events: [],
  ...extra,
});

describe("ladder page helpers", () => {
  it("says how far an instant is in its largest whole unit", () => {
    expect(distance(NOW + 30_000, NOW)).toBe("in 30 seconds");
    expect(distance(NOW + 60_000, NOW)).toBe("in 1 minute");
    expect(distance(NOW + 5 * 3_600_000, NOW)).toBe("in 5 hours");
    expect(distance(NOW - 2 * 86_400_000, NOW)).toBe("2 days ago");
  });

  it("words each phase from the window", () => {
    expect(phaseHint(ladder("a"), NOW)).toBe("No closing date.");
    expect(phaseHint(ladder("a", { closes_at: "2026-03-04T12:00:00Z" }), NOW)).toBe(
      "Open; closes in 3 days.",
    );
    expect(phaseHint(ladder("a", { phase: "upcoming", opens_at: "2026-03-01T14:00:00Z" }), NOW)).toBe(
      "Opens in 2 hours.",
    );
    expect(phaseHint(ladder("a", { phase: "closed", closes_at: "2026-02-28T12:00:00Z" }), NOW)).toBe(
      "Closed 1 day ago.",
    );
    expect(phaseHint(ladder("a", { enabled: false }), NOW)).toBe("Disabled: no matches are played.");
  });

  it("links the same page on each ladder, the default one without ?ladder=, and marks the current one", () => {
    expect(ladderSwitcher([ladder("public")], null, "/ladder")).toBe("");
    const nav = String(
      ladderSwitcher(
        [ladder("public"), ladder("spring", { phase: "upcoming" }), ladder("secret", { visible: false })],
        "secret",
        "/bot/x%20y",
      ),
    );
    expect(nav).toContain('href="/bot/x%20y" data-ladder="public"');
    expect(nav).toContain('href="/bot/x%20y?ladder=spring"');
    expect(nav).toMatch(
      /data-ladder="secret" aria-current="page">secret ladder <span class="badge">hidden<\/span>/,
    );
    expect(nav).toContain('<span class="badge phase-upcoming">upcoming</span>');
    // Names are escaped like every other value on the pages.
    expect(String(ladderSwitcher([ladder("a"), ladder("b", { name: "<b>" })], null, "/ladder"))).toContain(
      "&lt;b&gt;",
    );
  });

  it("names the ladder a match was played on, linked to that ladder's dashboard", () => {
    const nav = String(playedOn(ladder("spring", { phase: "closed" })));
    expect(nav).toContain('aria-label="Ladders"><span class="muted small">Played on</span>');
    expect(nav).toContain(
      'href="/ladder?ladder=spring" data-ladder="spring">spring ladder <span class="badge phase-closed">closed</span>',
    );
    expect(nav).not.toContain("aria-current");
    expect(String(playedOn(ladder("public")))).toContain('href="/ladder" data-ladder="public"');
  });
});
