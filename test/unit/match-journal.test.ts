// A match's journal when two nodes hold a copy of the match (server/cluster/match-journal.ts), on a real
// nats-server: a node cut off from NATS wakes up after another node took its match over, and appends before it
// hears so. Each append expects the journal's last sequence, so the taker's appends go on after the entries it
// resumed from, the stale copy's append is refused (the copy stops journaling and leaves the lease alone), and the
// journal holds each tick once, in order.
import { DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { unpack } from "msgpackr";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeMatchLease, encodeMatchLease, type MatchLease } from "../../server/cluster/journal-codec.ts";
import {
  JOURNAL_STREAM,
  JOURNAL_SUBJECT,
  journalSubject,
  MatchJournal,
} from "../../server/cluster/match-journal.ts";
import type { RunningMatch } from "../../server/runner/match-runner.ts";
import { type Nats, startNats } from "../helpers/nats.ts";

const MATCH = "m-journal-test";

/** What a journal reads of its match: the id, the setup, the seats' bots and versions, whether it plays. */
function matchStub(resume: boolean, id = MATCH): RunningMatch {
  const seat = (id: string) => ({ participant: { bot: { id, name: id }, version: "v1" } });
  return {
    id,
    setup: { matchId: id, seed: 1, ...(resume ? { resume: { ready: [true, true], ticks: [] } } : {}) },
    seats: [seat("bot-a"), seat("bot-b")],
    pairing: null,
    playing: true,
    movedTo: null,
  } as unknown as RunningMatch;
}

const tick = (t: number) => [t, [null, null] as [null, null], undefined] as const;

describe("a match's journal written from two nodes", () => {
  let nats: Nats;
  let nc: NatsConnection;
  const warned: string[] = [];
  const log = pino({ level: "warn" }, { write: (line: string) => void warned.push(line) });

  beforeAll(async () => {
    nats = await startNats();
    nc = await connect({ servers: nats.url });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: JOURNAL_STREAM, subjects: [`${JOURNAL_SUBJECT}.>`] });
  }, 30_000);

  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  it("refuses the stale copy's append once the taker has appended, and keeps each tick once", async () => {
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const kv = await new Kvm(nc).create("arena_matches_test", { history: 1 });
    const deps = (node: string) => ({ js, jsm, kv, node, log });
    // The first node: setup, start and ticks 0 and 1.
    const first = new MatchJournal(deps("node-a"), matchStub(false));
    first.started([true, true]);
    await first.resolved(...tick(0));
    await first.resolved(...tick(1));
    const seqOf = async () =>
      (await jsm.streams.getMessage(JOURNAL_STREAM, { last_by_subj: journalSubject(MATCH) }))!.seq;
    const resumedAt = await seqOf();
    // The taker resumed from those four entries and moved the lease; it appends tick 2.
    const takers: MatchLease = { node: "node-b", bots: ["bot-a", "bot-b"], adopted: true, broken: false };
    await kv.put(MATCH, encodeMatchLease(takers));
    const taker = new MatchJournal(deps("node-b"), matchStub(true), resumedAt);
    await taker.resolved(...tick(2));
    // The first node wakes and appends its own tick 2: refused, and it journals nothing more.
    await first.resolved(...tick(2));
    await first.resolved(...tick(3));
    await taker.resolved(...tick(3));
    expect(warned.some((l) => l.includes("another node appends to this match's journal"))).toBe(true);
    expect(warned.some((l) => l.includes("the match cannot fail over"))).toBe(false);
    // The lease is the taker's as it left it (the stale copy did not mark it broken).
    await new Promise((r) => setTimeout(r, 200));
    expect(decodeMatchLease((await kv.get(MATCH))!.value)).toEqual(takers);

    const c = await js.consumers.get(JOURNAL_STREAM, {
      filter_subjects: journalSubject(MATCH),
      deliver_policy: DeliverPolicy.All,
    });
    const pending = (await c.info()).num_pending;
    // Unpacked without the codec's checks: the stub's setup is not a whole match setup.
    const entries: { k: string; t?: number }[] = [];
    for await (const m of await c.fetch({ max_messages: pending, expires: 2_000 })) {
      entries.push(unpack(m.data) as { k: string; t?: number });
      if (entries.length === pending) break;
    }
    expect(entries.map((e) => (e.k === "tick" ? `t${e.t}` : e.k))).toEqual([
      "setup",
      "start",
      "t0",
      "t1",
      "t2",
      "t3",
    ]);
  }, 30_000);

  it("marks the journal behind when an append is refused while the lease is still its own", async () => {
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const kv = await new Kvm(nc).create("arena_matches_test_2", { history: 1 });
    const id = "m-journal-own";
    const journal = new MatchJournal({ js, jsm, kv, node: "node-a", log }, matchStub(false, id));
    journal.started([true, true]);
    await journal.resolved(...tick(0));
    // An entry this journal did not count (its own append, stored though its acknowledgement was lost).
    await js.publish(journalSubject(id), new Uint8Array([0xc0]));
    await journal.resolved(...tick(1));
    const t0 = Date.now();
    while (!decodeMatchLease((await kv.get(id))!.value)?.broken) {
      if (Date.now() - t0 > 5_000) throw new Error("the lease was never marked broken");
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(decodeMatchLease((await kv.get(id))!.value)).toMatchObject({ node: "node-a", broken: true });
  }, 30_000);
});
