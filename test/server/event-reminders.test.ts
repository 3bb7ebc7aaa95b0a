// Reminders of an event's own window (SPEC 6.3 event_reminders): the scheduler's event job mails the default
// ladder's members and the accounts that played for the event, a day before the event opens, once each; an
// account with neither gets none, and an event ladder's events are left to the ladder's own reminder.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventDefinition } from "../../server/ladders/event-definition.ts";
import type { Manifest } from "../../server/ladders/manifest.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { ladderDef, openEventDef } from "../helpers/ladders.ts";
import type { TestServer } from "../helpers/server.ts";

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(Date.now() + ms).toISOString();
/** An event without a window of its own (the tests give it one), whose achievements need an official match. */
const event = (id: string, ladder: string, extra: Partial<EventDefinition> = {}): EventDefinition =>
  openEventDef(id, ladder, {
    name: `Event ${id}`,
    description: "",
    opens_at: null,
    closes_at: null,
    achievements: ["a", "b", "c", "d", "e"].map((a) => ({
      id: a,
      name: `Achievement ${a}`,
      description: "",
      condition: { opponent: "official", matches: 1 },
    })),
    ...extra,
  });
const opensAt = iso(12 * HOUR);
const manifest: Manifest = {
  version: 1,
  ladders: [ladderDef("public"), ladderDef("cup", { opens_at: iso(10 * HOUR), closes_at: iso(40 * HOUR) })],
  events: [
    event("spring", "public", { opens_at: opensAt, closes_at: iso(30 * 24 * HOUR) }),
    event("cup-event", "cup"),
  ],
};

let srv: TestServer;
let ada: SignedIn;
let bea: SignedIn;

beforeAll(async () => {
  srv = await startAccountServer({}, { manifest });
  [ada, bea] = await Promise.all([
    signUp(srv, "ada@example.com", "ada"),
    signUp(srv, "bea@example.com", "bea"),
  ]);
  const enrolled = await call(srv.url, "POST", "/api/account/ladders/public/enrollment", {
    token: ada.access,
    body: {},
  });
  expect(enrolled.status).toBe(200);
}, 60_000);
afterAll(async () => srv?.stop());

const reminders = async () =>
  (
    await srv.app.ctx.store.db.query(
      "SELECT dedupe_key, subject FROM email_outbox WHERE category = 'event_reminders' ORDER BY dedupe_key",
    )
  ).map((r) => ({ key: String(r.dedupe_key), subject: String(r.subject) }));

describe("event reminders", () => {
  it("go out from the scheduler a day before an event opens, to its audience, once", async () => {
    expect(await reminders()).toEqual([]);
    // Two hours on: the scheduler's hourly look falls inside the day before opening.
    await srv.app.ctx.scheduler.tick(Date.now() + 2 * HOUR);
    const sent = await reminders();
    const spring = sent.filter((r) => r.key.startsWith("event_reminders:spring:"));
    expect(spring).toEqual([
      { key: `event_reminders:spring:opens:${opensAt}:${ada.id}`, subject: "Event spring opens soon" },
    ]);
    expect(sent.some((r) => r.key.endsWith(bea.id))).toBe(false);
    // The cup's event shares the cup's window: the ladder job reminds its members, the event job adds nothing.
    expect(sent.some((r) => r.key.startsWith("event_reminders:cup-event:"))).toBe(false);
    await srv.app.ctx.scheduler.tick(Date.now() + 3 * HOUR + 1000);
    expect(await reminders()).toEqual(sent);
  });
});
