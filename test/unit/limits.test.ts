// SPEC 8's per-bot limits as units: new versions per day (house bots exempt, a known label is free) and
// the socket's idle message rate (50 a second; past it, one rate_limited notice a second; past twice it, a
// flood the caller closes), plus the connection's send, close and liveness rules they rely on.
import { EventEmitter } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { useVersion, VersionLimitError, type VersionStores } from "../../server/bots/versions.ts";
import { testConfig } from "../../server/config.ts";
import { BotConnection } from "../../server/connection/bot-connection.ts";
import type { BotRow } from "../../server/store/types.ts";

const T0 = Date.UTC(2026, 0, 1);
const DAY = 24 * 3_600_000;

const bot = (over: Partial<BotRow> = {}): BotRow => ({
  id: "b1",
  name: "bee",
  display_name: "Bee",
  owner: "o",
  house: false,
  status: "active",
  avatar: null,
  created: new Date(T0).toISOString(),
  account_id: null,
  ...over,
});

/** The store calls useVersion makes, over versions with creation times; honours the window it is asked. */
function versionStore(labels: [string, number][]) {
  const versions = labels.map(([label, created]) => ({ label, created }));
  const audits: { kind: string; subject: string; detail: unknown }[] = [];
  const asked: string[] = [];
  const store = {
    version: async (_id: string, label: string) => {
      const v = versions.find((x) => x.label === label);
      return v ? { label: v.label } : null;
    },
    versionsCreatedSince: async (_id: string, since: string) => {
      asked.push(since);
      return versions.filter((v) => v.created >= Date.parse(since)).length;
    },
    audit: async (kind: string, subject: string, detail: unknown) => {
      audits.push({ kind, subject, detail });
    },
    ensureVersion: async (_id: string, label: string, notes: string) => {
      const known = versions.some((v) => v.label === label);
      if (!known) versions.push({ label, created: Date.now() });
      return { version: { label, notes }, created: !known };
    },
  };
  // One fake answers both the version reads and the audit write.
  return { store: { botStore: store, auditStore: store } as unknown as VersionStores, audits, asked };
}

describe("new versions per day (SPEC 8)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const config = testConfig({ newVersionsPerDay: 2 });

  it("creates new labels up to the limit in the last 24 hours, then refuses and audits", async () => {
    const { store, audits, asked } = versionStore([["old", T0 - DAY - 1]]);
    expect((await useVersion(store, config, bot(), "v1", "first")).version).toMatchObject({ label: "v1" });
    expect(asked).toEqual([new Date(T0 - DAY).toISOString()]);
    // Notes default to empty.
    expect((await useVersion(store, config, bot(), "v2")).version).toMatchObject({ label: "v2", notes: "" });
    const refused = useVersion(store, config, bot(), "v3");
    await expect(refused).rejects.toBeInstanceOf(VersionLimitError);
    await expect(useVersion(store, config, bot(), "v3")).rejects.toThrow(
      "at most 2 new versions per bot per day",
    );
    expect(audits[0]).toEqual({
      kind: "throttle",
      subject: "bee",
      detail: { reason: "new_versions_per_day", limit: 2 },
    });
    expect(((await refused.catch((e: unknown) => e)) as VersionLimitError).limit).toBe(2);
  });

  it("counts a version made exactly 24 hours ago, not one made before", async () => {
    const { store } = versionStore([
      ["a", T0 - DAY],
      ["b", T0 - DAY - 1],
    ]);
    await useVersion(store, config, bot(), "c");
    await expect(useVersion(store, config, bot(), "d")).rejects.toBeInstanceOf(VersionLimitError);
  });

  it("reuses a known label at the limit, and exempts house bots", async () => {
    const { store, audits } = versionStore([
      ["a", T0 - 1],
      ["b", T0 - 1],
    ]);
    expect(await useVersion(store, config, bot(), "a")).toMatchObject({ created: false });
    expect(await useVersion(store, config, bot({ house: true }), "c")).toMatchObject({ created: true });
    expect(audits).toEqual([]);
  });
});

/** A stand-in for a ws WebSocket: records what is sent and how it was closed. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  sent: unknown[] = [];
  closedWith: [number, string] | null = null;
  terminated = 0;
  pings = 0;
  failClose = false;
  failPing = false;
  send(data: string | Uint8Array, opts?: { binary: boolean }) {
    this.sent.push(
      typeof data === "string" ? JSON.parse(data) : { bytes: data.length, binary: opts?.binary },
    );
  }
  close(code: number, reason: string) {
    if (this.failClose) throw new Error("not open");
    this.closedWith = [code, reason];
  }
  terminate() {
    this.terminated++;
  }
  ping() {
    if (this.failPing) throw new Error("gone");
    this.pings++;
  }
}

const connection = () => {
  const ws = new FakeSocket();
  return { ws, conn: new BotConnection(ws as never, bot()) };
};
const errors = (ws: FakeSocket) => ws.sent.filter((m) => (m as { type: string }).type === "error");

describe("idle messages per second (SPEC 8: 50)", () => {
  it("allows 50 in a second, drops the next ones with one notice, and calls past 100 a flood", () => {
    const { ws, conn } = connection();
    const now = 10_000;
    for (let i = 0; i < 50; i++) expect(conn.rate(50, now + i)).toBe("ok");
    expect(errors(ws)).toEqual([]);
    for (let i = 0; i < 50; i++) expect(conn.rate(50, now + 100)).toBe("limited");
    expect(errors(ws)).toEqual([
      { type: "error", code: "rate_limited", message: "at most 50 messages per second outside a match" },
    ]);
    expect(conn.rate(50, now + 999)).toBe("flood");
  });

  it("starts a new count a second after the window began, and repeats the notice at most once a second", () => {
    const { ws, conn } = connection();
    for (let i = 0; i < 51; i++) conn.rate(50, 10_000);
    expect(conn.rate(50, 10_999)).toBe("limited");
    expect(errors(ws)).toHaveLength(1);
    // A new window: 50 more are fine.
    for (let i = 0; i < 50; i++) expect(conn.rate(50, 11_000)).toBe("ok");
    expect(conn.rate(50, 11_000)).toBe("limited");
    expect(errors(ws)).toHaveLength(2);
    expect(conn.rate(50, 11_999)).toBe("limited");
    expect(errors(ws)).toHaveLength(2);
  });
});

describe("the connection", () => {
  it("sends only while open, and names a catalog error's message", () => {
    const { ws, conn } = connection();
    conn.send({ type: "replaced" });
    conn.send('{"type":"b"}');
    conn.sendUtf8(new Uint8Array([123, 125]));
    conn.error("not_queued");
    conn.error("quota_exceeded", "custom");
    expect(ws.sent).toEqual([
      { type: "replaced" },
      { type: "b" },
      { bytes: 2, binary: false },
      { type: "error", code: "not_queued", message: expect.any(String) },
      { type: "error", code: "quota_exceeded", message: "custom" },
    ]);
    expect((ws.sent[3] as { message: string }).message).not.toBe("not_queued");
    ws.readyState = 3;
    conn.send({ type: "replaced" });
    conn.sendUtf8(new Uint8Array([1]));
    expect(ws.sent).toHaveLength(5);
  });

  it("refuses with an error then close 1008; closes once; terminates when close throws", () => {
    vi.useFakeTimers();
    try {
      const { ws, conn } = connection();
      conn.refuse("invalid_token");
      expect(errors(ws)).toEqual([{ type: "error", code: "invalid_token", message: expect.any(String) }]);
      expect(ws.closedWith).toEqual([1008, "invalid_token"]);
      expect(conn.closed).toBe(true);
      conn.send({ type: "replaced" });
      conn.close(1000, "again");
      expect(ws.closedWith).toEqual([1008, "invalid_token"]);
      expect(ws.sent).toHaveLength(1);
      // A peer that never completes the closing handshake is terminated after 5 s.
      vi.advanceTimersByTime(4_999);
      expect(ws.terminated).toBe(0);
      vi.advanceTimersByTime(1);
      expect(ws.terminated).toBe(1);

      const other = connection();
      other.ws.failClose = true;
      other.conn.close(1000, "bye");
      expect(other.ws.terminated).toBe(1);
      expect(other.conn.closed).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("pings while answered, terminates a socket that missed the last Ping or cannot be pinged", () => {
    const { ws, conn } = connection();
    expect(conn.ping()).toBe(true);
    expect(ws.pings).toBe(1);
    ws.emit("pong");
    expect(conn.ping()).toBe(true);
    expect(conn.ping()).toBe(false);
    expect(ws.terminated).toBe(1);
    expect(conn.closed).toBe(true);

    const broken = connection();
    broken.ws.failPing = true;
    expect(broken.conn.ping()).toBe(false);
    expect(broken.ws.terminated).toBe(1);
  });

  it("knows when the socket closed, and numbers connections", () => {
    const a = connection();
    const b = connection();
    expect(b.conn.id).toBeGreaterThan(a.conn.id);
    expect(a.conn.bot.id).toBe("b1");
    a.ws.emit("close");
    expect(a.conn.closed).toBe(true);
    a.conn.terminate();
    expect(a.ws.terminated).toBe(1);
  });
});
