// Messages to the other nodes across a NATS outage (server/cluster/held-publish.ts), on a real nats-server this test
// starts, kills and starts again on the same port. A plain publish made while the server is down never arrives
// (the client empties its outgoing buffer when it reconnects); the held publisher's arrive once, after the
// reconnect, and so do the shared counts built on it.
import { connect, type NatsConnection } from "@nats-io/transport-node";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shareCounts } from "../../server/cluster/count-batch.ts";
import { heldPublisher } from "../../server/cluster/held-publish.ts";
import { type Nats, startNats } from "../helpers/nats.ts";

const log = pino({ level: "silent" });
const enc = new TextEncoder();
const dec = new TextDecoder();
const options = (url: string) => ({ servers: url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });

async function until<T>(f: () => T | null | undefined, what: string, ms = 15_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = f();
    if (v !== null && v !== undefined && v !== false) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("messages to the other nodes across a NATS restart", () => {
  let nats: Nats;
  let a: NatsConnection;
  let b: NatsConnection;
  const downs = { a: 0, b: 0 };
  const ups = { a: 0, b: 0 };
  const watch = (nc: NatsConnection, who: "a" | "b") =>
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === "disconnect") downs[who]++;
        if (s.type === "reconnect") ups[who]++;
      }
    })().catch(() => {});

  beforeAll(async () => {
    nats = await startNats();
    a = await connect(options(nats.url));
    b = await connect(options(nats.url));
    watch(a, "a");
    watch(b, "b");
  }, 30_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await nats?.stop();
  });

  it("keeps what is published while the server is down and sends it once after the reconnect", async () => {
    const got: string[] = [];
    b.subscribe("held.test", {
      callback: (_, m) => {
        got.push(dec.decode(m.data));
      },
    });
    const counted: [string, number][] = [];
    const counts = shareCounts({
      nc: a,
      node: "a",
      log,
      subject: "held.counts",
      slots: 1,
      everyMs: 10,
      what: "test counts",
      elsewhere: () => {},
    });
    const peer = shareCounts({
      nc: b,
      node: "b",
      log,
      subject: "held.counts",
      slots: 1,
      everyMs: 10,
      what: "test counts",
      elsewhere: (key, c) => counted.push([key, c[0]!]),
    });
    const out = heldPublisher(a, log, 200);
    await b.flush();
    out.publish("held.test", enc.encode("before"));
    await until(() => got.includes("before"), "the first message");

    const downsBefore = downs.a;
    await nats.kill();
    await until(() => downs.a > downsBefore && downs.b > 0, "both clients seeing the server gone");
    out.publish("held.test", enc.encode("during 1"));
    a.publish("held.test", enc.encode("plain publish")); // the client's own behaviour: this one is lost
    out.publish("held.test", enc.encode("during 2"));
    counts.add("1.2.3.4");
    counts.add("1.2.3.4");
    counts.add("5.6.7.8");
    await until(() => out.held === 2, "the two messages kept");

    await nats.restart();
    await until(() => got.includes("during 2"), "the kept messages after the reconnect");
    await until(() => counted.length >= 2, "the kept counts after the reconnect");
    await new Promise((r) => setTimeout(r, 500)); // nothing more arrives later
    expect(got).toEqual(["before", "during 1", "during 2"]);
    expect(counted.sort()).toEqual([
      ["1.2.3.4", 2],
      ["5.6.7.8", 1],
    ]);
    expect(out.held).toBe(0);
    out.stop();
    counts.stop();
    peer.stop();
  }, 60_000);
});
