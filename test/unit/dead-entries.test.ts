// A dead node's entries in a real JetStream key-value bucket (issue 36): a nats-server this test starts on a free
// port. The sweep deletes the entries of a node out of the heartbeat directory for the whole grace, never before,
// never an entry another node wrote since it was seen, and forgets a node that came back.
import { type KV, Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeadEntrySweep, type SeenEntry } from "../../server/cluster/dead-entries.ts";
import { type Nats, startNats } from "../helpers/nats.ts";

const GONE = 1_000;
const STEP = 5_000; // the sweep looks at most this often

describe("the entries of nodes gone from the cluster", () => {
  let nats: Nats;
  let nc: NatsConnection;
  let kv: KV;

  beforeAll(async () => {
    nats = await startNats();
    nc = await connect({ servers: nats.url });
    kv = await new Kvm(nc).create("dead_entries_test", { history: 1 });
  }, 30_000);

  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });

  /** What a bucket's watcher would have seen: each entry's key, node and revision. */
  async function put(key: string, node: string): Promise<SeenEntry> {
    return { key, node, revision: await kv.put(key, new TextEncoder().encode(node)) };
  }
  const present = async (key: string) => (await kv.get(key))?.operation === "PUT";

  it("deletes a gone node's entries after the grace, and no live node's", async () => {
    const live = new Set(["alive"]);
    const sweep = new DeadEntrySweep(kv, () => live, pino({ level: "silent" }), GONE);
    const seen = [await put("bot-1", "dead"), await put("bot-2", "dead"), await put("bot-3", "alive")];
    expect(sweep.sweep(() => seen, 0)).toEqual([]); // first seen missing now
    expect(sweep.sweep(() => seen, 1)).toEqual([]); // not looked at again so soon
    expect(sweep.sweep(() => seen, STEP + GONE)).toEqual(["bot-1", "bot-2"]);
    await expect.poll(() => present("bot-1")).toBe(false);
    expect(await present("bot-2")).toBe(false);
    expect(await present("bot-3")).toBe(true);
  });

  it("leaves an entry another node wrote after the sweep saw it", async () => {
    const sweep = new DeadEntrySweep(kv, () => new Set(["alive"]), pino({ level: "silent" }), GONE);
    const stale = await put("bot-4", "dead");
    await put("bot-4", "alive"); // the bot reconnected to a live node, which wrote its entry again
    expect(sweep.sweep(() => [stale], 0)).toEqual([]);
    expect(sweep.sweep(() => [stale], STEP + GONE)).toEqual(["bot-4"]); // sent, and refused by its revision
    await new Promise((r) => setTimeout(r, 200));
    expect(await present("bot-4")).toBe(true);
  });

  it("starts the grace again for a node that came back", async () => {
    const live = new Set(["alive"]);
    const sweep = new DeadEntrySweep(kv, () => live, pino({ level: "silent" }), GONE);
    const seen = [await put("bot-5", "flaky")];
    expect(sweep.sweep(() => seen, 0)).toEqual([]);
    live.add("flaky"); // its heartbeat is back
    expect(sweep.sweep(() => seen, STEP)).toEqual([]);
    live.delete("flaky");
    expect(sweep.sweep(() => seen, 2 * STEP)).toEqual([]); // missing again from here
    expect(sweep.sweep(() => seen, 3 * STEP)).toEqual(["bot-5"]);
  });
});
