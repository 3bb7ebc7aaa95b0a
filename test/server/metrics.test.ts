// GET /metrics for operators (issue 14 part 4) on the real server: closed (404) without the flags; behind the
// bearer token with --metrics-token (401 in the SPEC's error shape without it or with a wrong one); on its own
// listener with --metrics-listen. After a real match between a WebSocket bot and a house bot, a human-play
// socket and a killed worker, the exposition is parsed by a Prometheus text parser (parse-prometheus-text-format)
// and every family the issue names is there with sensible values, the same as prom-client's registry reads back.
import parsePrometheusTextFormat, { type Family, type Sample } from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSIONS } from "../../engine/versions.ts";
import { ConfigError, parseConfig } from "../../server/config.ts";
import { call, signUp } from "../helpers/accounts.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

const TOKEN = "metrics-test-token-0123456789";
const DRIVER = process.env.DATABASE_URL ? "pg" : "pglite";

async function scrape(base: string, token: string | null = TOKEN) {
  const res = await fetch(`${base}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text(), res };
}

/** Parses an exposition into families by name (the parser also checks every sample line's syntax). */
function parse(text: string): Map<string, Family> {
  return new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
}

function family(fams: Map<string, Family>, name: string, type: Family["type"]): Family {
  const f = fams.get(name);
  expect(f, `family ${name}`).toBeDefined();
  expect(f!.type, `type of ${name}`).toBe(type);
  return f!;
}

/** The one sample of a family whose labels include `labels`. */
function sample(f: Family, labels: Record<string, string> = {}): Sample {
  const found = f.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  expect(found.length, `${f.name} ${JSON.stringify(labels)}`).toBe(1);
  return found[0]!;
}

const value = (f: Family, labels: Record<string, string> = {}) => Number(sample(f, labels).value);

/**
 * One histogram series, well formed: cumulative buckets, +Inf equal to the count, a finite sum. The parser merges
 * the series of a labelled histogram into one (it keys buckets by `le` alone and drops labelled `_sum` and
 * `_count` lines), so a series is read back from prom-client's registry and each of its lines is then found,
 * with the same value, in the text that was scraped.
 */
async function histogram(
  srv: TestServer,
  text: string,
  name: string,
  labels: Record<string, string>,
  stable = true,
): Promise<{ count: number; sum: number }> {
  const json = await srv.app.metrics!.registry.getMetricsAsJSON();
  // prom-client's types leave out the sample name its histograms put on each value.
  type Series = { labels: Record<string, string | number>; value: number; metricName?: string };
  const values = (json.find((m) => m.name === name)?.values ?? []) as Series[];
  const ours = values.filter((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  const buckets = ours
    .filter((v) => v.metricName === `${name}_bucket`)
    .map((v) => [v.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(v.labels.le), v.value] as const)
    .sort((a, b) => a[0] - b[0]);
  expect(buckets.length, `${name} ${JSON.stringify(labels)} buckets`).toBeGreaterThan(1);
  for (let i = 1; i < buckets.length; i++) expect(buckets[i]![1]).toBeGreaterThanOrEqual(buckets[i - 1]![1]);
  const count = ours.find((v) => v.metricName === `${name}_count`)?.value;
  const sum = ours.find((v) => v.metricName === `${name}_sum`)?.value;
  expect(buckets.at(-1)![0]).toBe(Number.POSITIVE_INFINITY);
  expect(buckets.at(-1)![1]).toBe(count);
  expect(Number.isFinite(sum) && sum! >= 0).toBe(true);
  // The scraped text has the series too: the same count, or (for figures still moving, like the matchmaker's
  // passes and the database's statements) a count no larger than the registry's a moment later.
  const inText = (suffix: string) => {
    const l = text
      .split("\n")
      .find(
        (x) =>
          x.startsWith(`${name}_${suffix}{`) &&
          Object.entries(labels).every(([k, val]) => x.includes(`${k}="${val}"`)),
      );
    expect(l, `${name}_${suffix} ${JSON.stringify(labels)} in the text`).toBeDefined();
    return Number(l!.slice(l!.lastIndexOf(" ") + 1));
  };
  const textCount = inText("count");
  if (stable) {
    expect(textCount).toBe(count);
    expect(inText("sum")).toBe(sum);
  } else expect(textCount).toBeLessThanOrEqual(count!);
  return { count: count!, sum: sum! };
}

async function until(cond: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("metrics flags", () => {
  const parse = (args: string[], env = {}) => parseConfig(["--anonymous-dev", ...args], env);

  it("are off by default, and take a token (flag or METRICS_TOKEN) and a host:port", () => {
    const off = parse([]);
    expect(off).toMatchObject({ metricsToken: undefined, metricsListen: undefined });
    expect(parse(["--metrics-token", TOKEN])).toMatchObject({ metricsToken: TOKEN });
    expect(parse([], { METRICS_TOKEN: TOKEN })).toMatchObject({ metricsToken: TOKEN });
    expect(parse(["--metrics-listen", "127.0.0.1:9464"])).toMatchObject({
      metricsListen: { host: "127.0.0.1", port: 9464 },
    });
    expect(parse(["--metrics-listen", "[::1]:0"])).toMatchObject({ metricsListen: { host: "::1", port: 0 } });
  });

  it("refuse a short or spaced token, a bad address and the main port", () => {
    expect(() => parse(["--metrics-token", "short"])).toThrow(/--metrics-token must be 16-512/);
    expect(() => parse(["--metrics-token", "a token with spaces in it"])).toThrow(ConfigError);
    for (const bad of ["9464", "localhost", "127.0.0.1:99999", "::1:9464", "127.0.0.1:port"])
      expect(() => parse(["--metrics-listen", bad]), bad).toThrow(/--metrics-listen must be host:port/);
    expect(() => parse(["--port", "9000", "--metrics-listen", "127.0.0.1:9000"])).toThrow(/another port/);
  });
});

describe("without a metrics flag", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("there is no /metrics: 404 in the error shape, and nothing is collected", async () => {
    for (const token of [null, TOKEN]) {
      const r = await scrape(srv.url, token);
      expect(r.status).toBe(404);
      expect(JSON.parse(r.text)).toEqual({ error: "no route GET /metrics", code: "not_found" });
    }
    expect(srv.app.metrics).toBeNull();
    expect(srv.app.metricsAddress()).toBeNull();
  });
});

describe("with --metrics-token", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer(
      { metricsToken: TOKEN, tickMs: 200, startupMs: 500 },
      // A human seat left alone times out fast, so the deadline misses show up within the test.
      { humanTickMs: 50 },
    );
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("refuses a scrape without the token or with a wrong one: 401 in the SPEC's error shape", async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, "missing_authorization"],
      [{ authorization: "Basic bWV0cmljczp4" }, "missing_authorization"],
      [{ authorization: "Bearer" }, "missing_authorization"],
      [{ authorization: "Bearer wrong-token-0123456789" }, "invalid_credential"],
      [{ authorization: `Bearer ${TOKEN}x` }, "invalid_credential"],
      [{ authorization: `Bearer ${TOKEN.slice(0, -1)}` }, "invalid_credential"],
    ];
    for (const [headers, code] of cases) {
      const res = await fetch(`${srv.url}/metrics`, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(["code", "error"]);
      expect(body.code).toBe(code);
      expect(typeof body.error).toBe("string");
    }
  });

  it("after a real match, a human socket and a worker restart, shows every family with sensible values", async () => {
    // A bot plays a whole ranked match against a house bot over a real WebSocket.
    const bot = new BotClient(srv.wsUrl, await srv.register("metrics-bot"));
    await bot.open();
    const hello = await bot.queueForMatch();
    const since = bot.received.length;
    const stop = bot.autoplay();
    bot.send({ type: "ready" });
    await bot.next("observation", (m) => (m.tick as number) >= 3, 15_000, since);
    // While it plays: a spectator polls the live feed; the match is on the worker, the socket is counted.
    expect((await fetch(`${srv.url}/api/matches/${hello.match_id}/live?since=0`)).status).toBe(200);
    const during = parse((await scrape(srv.url)).text);
    expect(value(family(during, "arena_sockets", "GAUGE"), { kind: "bot" })).toBe(1);
    expect(value(family(during, "arena_matches_running", "GAUGE"), { ladder: "public" })).toBe(1);
    const workerMatches = family(during, "arena_pool_worker_matches", "GAUGE");
    expect(workerMatches.metrics.map((m) => Number(m.value))).toEqual([1]);
    expect(workerMatches.metrics[0]!.labels!.worker).toMatch(/^\d+$/);
    const end = await bot.next("end", undefined, 60_000, since);
    stop();
    expect(end.match_id).toBe(hello.match_id);

    // A person opens /human against a house bot, then leaves: the seat idles at each (50 ms) deadline.
    const kim = await signUp(srv, "kim@example.com", "kim");
    const ticket = (await call(srv.url, "POST", "/api/account/play-ticket", { token: kim.access })).body
      .ticket as string;
    const human = new BotClient(
      `${srv.url.replace(/^http/, "ws")}/human?ticket=${ticket}&opponent=kiter`,
      null,
    );
    await human.open();
    await human.next("hello", undefined, 10_000, 0);
    expect(
      value(family(parse((await scrape(srv.url)).text), "arena_sockets", "GAUGE"), { kind: "human" }),
    ).toBe(1);
    human.send({ type: "ready" });
    await human.next("observation", undefined, 10_000, 0);
    human.close();
    await human.closed();
    await until(() => srv.app.ctx.matches.size === 0);

    // A worker dies and Piscina replaces it.
    srv.app.ctx.live.pool.killThread(0);
    await until(async () => {
      const f = parse((await scrape(srv.url)).text);
      const restarts = Number(f.get("arena_pool_worker_restarts_total")?.metrics[0]?.value);
      return restarts === 1 && Number(f.get("arena_pool_threads")?.metrics[0]?.value) === 1;
    });
    // A garbage collection is seen by the GC observer (its entries arrive asynchronously, and a short run may
    // not have collected yet): make garbage until one is counted.
    const gcFigures = srv.app.metrics!.registry.getSingleMetric("nodejs_gc_duration_seconds")!;
    await until(async () => {
      const garbage: number[][] = [];
      for (let i = 0; i < 20_000; i++) garbage.push(new Array(64).fill(i));
      await new Promise((r) => setTimeout(r, 20));
      return garbage.length > 0 && (await gcFigures.get()).values.length > 0;
    });

    const r = await scrape(srv.url);
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(r.res.headers.get("cache-control")).toBe("no-store");
    const f = parse(r.text);

    // The pool.
    expect(value(family(f, "arena_pool_threads", "GAUGE"))).toBe(1);
    expect(value(family(f, "arena_pool_queued_tasks", "GAUGE"))).toBe(0);
    expect(value(family(f, "arena_pool_worker_restarts_total", "COUNTER"))).toBe(1);
    const util = value(family(f, "arena_pool_utilization", "GAUGE"));
    expect(util).toBeGreaterThanOrEqual(0);
    expect(util).toBeLessThanOrEqual(1);
    // The replacement worker is new: its matches are 0 and its busy time is its own.
    const matches = family(f, "arena_pool_worker_matches", "GAUGE");
    expect(matches.metrics.map((m) => Number(m.value))).toEqual([0]);
    expect(matches.metrics[0]!.labels!.worker).not.toBe(workerMatches.metrics[0]!.labels!.worker);
    const busy = family(f, "arena_pool_worker_busy_seconds_total", "COUNTER");
    expect(busy.metrics).toHaveLength(1);
    expect(Number(busy.metrics[0]!.value)).toBeGreaterThanOrEqual(0);

    // Ticks: every tick of the ranked match after the first, both histograms; the human seat's misses.
    const h = (name: string, labels: Record<string, string>, stable = true) => {
      family(f, name, "HISTOGRAM");
      return histogram(srv, r.text, name, labels, stable);
    };
    const rt = await h("arena_tick_round_trip_seconds", { mode: "ranked" });
    const sv = await h("arena_tick_server_seconds", { mode: "ranked" });
    expect(rt.count).toBeGreaterThanOrEqual((end.final_tick as number) - 1);
    expect(sv.count).toBe(rt.count);
    expect(sv.sum).toBeGreaterThan(0);
    // The server's share of a tick is part of its round trip.
    expect(sv.sum).toBeLessThanOrEqual(rt.sum);
    const humanTicks = await h("arena_tick_round_trip_seconds", { mode: "human" });
    expect(humanTicks.count).toBeGreaterThan(0);
    expect((await h("arena_tick_server_seconds", { mode: "human" })).count).toBe(humanTicks.count);
    const misses = family(f, "arena_tick_deadline_misses_total", "COUNTER");
    expect(value(misses, { reason: "timeout" }) + value(misses, { reason: "disconnected" })).toBeGreaterThan(
      0,
    );

    // Sockets, connections, spectators, drain.
    const sockets = family(f, "arena_sockets", "GAUGE");
    expect(value(sockets, { kind: "bot" })).toBe(1);
    expect(value(sockets, { kind: "human" })).toBe(0);
    expect(value(family(f, "arena_connections_open", "GAUGE"))).toBeGreaterThanOrEqual(1);
    expect(value(family(f, "arena_spectator_polls_total", "COUNTER"))).toBe(1);
    expect(value(family(f, "arena_draining", "GAUGE"))).toBe(0);
    expect(value(family(f, "arena_matches_running", "GAUGE"), { ladder: "public" })).toBe(0);

    // Ladders: the queue and the matchmaker's passes.
    expect(value(family(f, "arena_queue_length", "GAUGE"), { ladder: "public" })).toBe(0);
    expect((await h("arena_matchmaker_pass_seconds", { ladder: "public" }, false)).count).toBeGreaterThan(0);

    // The database: statements (a match's result is one) and transactions (sign-up, registration), on this run's
    // driver.
    expect(
      (await h("arena_db_query_seconds", { driver: DRIVER, kind: "statement" }, false)).count,
    ).toBeGreaterThan(0);
    expect(
      (await h("arena_db_query_seconds", { driver: DRIVER, kind: "transaction" }, false)).count,
    ).toBeGreaterThan(0);

    // Event loop, process and GC (prom-client's default collectors, into this app's registry).
    expect(value(family(f, "nodejs_eventloop_lag_seconds", "GAUGE"))).toBeGreaterThanOrEqual(0);
    expect(value(family(f, "nodejs_eventloop_lag_p99_seconds", "GAUGE"))).toBeGreaterThan(0);
    expect(value(family(f, "process_cpu_seconds_total", "COUNTER"))).toBeGreaterThan(0);
    expect(value(family(f, "process_resident_memory_bytes", "GAUGE"))).toBeGreaterThan(0);
    expect(value(family(f, "nodejs_heap_size_used_bytes", "GAUGE"))).toBeGreaterThan(0);
    const gc = family(f, "nodejs_gc_duration_seconds", "HISTOGRAM");
    expect(gc.metrics.length).toBeGreaterThan(0);
    expect(value(family(f, "arena_build_info", "GAUGE"), { release: VERSIONS.release })).toBe(1);

    bot.close();
  }, 120_000);
});

describe("with --metrics-listen", () => {
  let open: TestServer;
  let guarded: TestServer;
  beforeAll(async () => {
    open = await startServer({ metricsListen: { host: "127.0.0.1", port: 0 } });
    guarded = await startServer({ metricsListen: { host: "127.0.0.1", port: 0 }, metricsToken: TOKEN });
  });
  afterAll(async () => {
    await open?.stop();
    await guarded?.stop();
  });

  const listener = (srv: TestServer) => `http://127.0.0.1:${srv.app.metricsAddress()!.port}`;

  it("serves /metrics on its own address only; the main port has none", async () => {
    expect(open.app.metricsAddress()!.port).not.toBe(new URL(open.url).port);
    expect((await scrape(open.url, null)).status).toBe(404);
    expect((await scrape(open.url)).status).toBe(404);
    const r = await scrape(listener(open), null);
    expect(r.status).toBe(200);
    const f = parse(r.text);
    // The pool starts with the first match: none has been played here.
    expect(value(family(f, "arena_pool_threads", "GAUGE"))).toBe(0);
    expect(value(family(f, "arena_sockets", "GAUGE"), { kind: "bot" })).toBe(0);
    const other = await fetch(`${listener(open)}/api/status`);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: "no route GET /api/status", code: "not_found" });
    expect((await fetch(`${listener(open)}/metrics`, { method: "POST" })).status).toBe(404);
  });

  it("asks for the token there too when one is set", async () => {
    expect((await scrape(guarded.url)).status).toBe(404);
    const none = await scrape(listener(guarded), null);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text)).toMatchObject({ code: "missing_authorization" });
    expect(none.res.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    const wrong = await scrape(listener(guarded), "not-the-token-at-all");
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text)).toMatchObject({ code: "invalid_credential" });
    const ok = await scrape(listener(guarded));
    expect(ok.status).toBe(200);
    expect(parse(ok.text).get("arena_tick_server_seconds")?.type).toBe("HISTOGRAM");
  });
});
