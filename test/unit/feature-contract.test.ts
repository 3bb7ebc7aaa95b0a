// The feature contract (server/kernel/feature.ts): features are built in list order, each handed only the
// services it names; a need that is not built before it and a name listed twice are refused at start; a
// feature's operations are mounted with its own services (and handed to the tool endpoint bound to them), its
// listeners subscribed on the bus, its jobs put on the scheduler and its pages mounted after every operation.
import Fastify, { type FastifyInstance } from "fastify";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { EventBus } from "../../server/kernel/bus.ts";
import { type AnyFeature, composeFeatures, type Kernel, mountPages } from "../../server/kernel/feature.ts";
import type { Authenticate } from "../../server/kernel/operation.ts";
import { ResponseParts } from "../../server/kernel/parts.ts";
import type { ScheduledJob } from "../../server/kernel/scheduler.ts";

const log = pino({ level: "silent" });
const noAuth: Authenticate = async () => null;

function kernel(bus = new EventBus(log), jobs: ScheduledJob[] = []): Kernel {
  return {
    config: {} as Kernel["config"],
    log,
    http: {} as Kernel["http"],
    overrides: {},
    db: {} as Kernel["db"],
    work: async () => {
      throw new Error("no database here");
    },
    bus,
    settings: {} as Kernel["settings"],
    scheduler: { add: (job: ScheduledJob) => jobs.push(job) } as unknown as Kernel["scheduler"],
    parts: new ResponseParts(),
    operations: [],
    boundOperations: () => [],
  };
}

/** Features given as plain values: the names are the tests' own, not the server's. */
const feature = (f: Record<string, unknown>) => f as unknown as AnyFeature;

describe("composeFeatures", () => {
  it("builds in order, hands each feature only what it names, mounts its operations with its services", async () => {
    const app = Fastify();
    const seen: Record<string, unknown> = {};
    const built = await composeFeatures(
      app,
      kernel(),
      [
        feature({
          name: "first",
          needs: ["outside"],
          build: (_k: Kernel, deps: Record<string, unknown>) => {
            seen.first = Object.keys(deps);
            return { hello: () => `first with ${deps.outside}` };
          },
          operations: [
            {
              method: "GET",
              path: "/first",
              operationId: "first",
              summary: "",
              auth: "none",
              handle: async (_input: unknown, svc: { hello(): string }) => ({ said: svc.hello() }),
            },
          ],
        }),
        feature({
          name: "second",
          needs: ["first"],
          build: (_k: Kernel, deps: Record<string, unknown>) => {
            seen.second = Object.keys(deps);
            return {};
          },
        }),
      ],
      { outside: "a provided service" } as never,
      noAuth,
    );
    expect(seen).toEqual({ first: ["outside"], second: ["first"] });
    expect(Object.keys(built.services).sort()).toEqual(["first", "outside", "second"]);
    // The tool endpoint runs a feature's operation with the services it was built with.
    expect(built.operations.map((b) => b.op.operationId)).toEqual(["first"]);
    expect((built.operations[0]!.services as { hello(): string }).hello()).toBe(
      "first with a provided service",
    );
    await app.ready();
    const res = await app.inject({ method: "GET", url: "/first" });
    expect(res.json()).toEqual({ said: "first with a provided service" });
    await app.close();
  });

  it("refuses a need built later or unknown, and a name listed twice", async () => {
    const build = () => ({});
    const later = [feature({ name: "a", needs: ["b"], build }), feature({ name: "b", needs: [], build })];
    await expect(composeFeatures(Fastify(), kernel(), later, {}, noAuth)).rejects.toThrow(
      /needs b, which is not built/,
    );
    const twice = [feature({ name: "a", needs: [], build }), feature({ name: "a", needs: [], build })];
    await expect(composeFeatures(Fastify(), kernel(), twice, {}, noAuth)).rejects.toThrow(/listed twice/);
  });

  it("puts a feature's jobs on the scheduler and mounts its pages with its services", async () => {
    const jobs: ScheduledJob[] = [];
    const app = Fastify();
    const features = [
      feature({
        name: "timed",
        needs: [],
        build: () => ({ page: "<p>timed</p>", job: { name: "sweep", nextAt: () => 0, run: async () => {} } }),
        jobs: (svc: { job: ScheduledJob }) => [svc.job],
        pages: (http: FastifyInstance, svc: { page: string }) =>
          http.get("/timed", async (_req, reply) => reply.type("text/html").send(svc.page)),
      }),
    ];
    const composed = await composeFeatures(app, kernel(new EventBus(log), jobs), features, {}, noAuth);
    await mountPages(app, features, composed);
    expect(jobs.map((j) => j.name)).toEqual(["sweep"]);
    await app.ready();
    expect((await app.inject({ method: "GET", url: "/timed" })).body).toBe("<p>timed</p>");
    await app.close();
  });

  it("subscribes a feature's listeners on the bus with its services", async () => {
    const bus = new EventBus(log);
    const heard: string[] = [];
    await composeFeatures(
      Fastify(),
      kernel(bus),
      [
        feature({
          name: "listener",
          needs: [],
          build: () => ({ note: (s: string) => heard.push(s) }),
          listeners: (svc: { note(s: string): void }) => ({
            SettingsChanged: (e: { by: string }) => svc.note(`settings by ${e.by}`),
          }),
        }),
      ],
      {},
      noAuth,
    );
    await bus.emit("SettingsChanged", { revision: 2, by: "root" });
    expect(heard).toEqual(["settings by root"]);
  });

  it("merges the fields features add to another's resource (response parts), each with its own services", async () => {
    const k = kernel();
    await composeFeatures(
      Fastify(),
      k,
      [
        feature({ name: "owner", needs: [], build: () => ({}) }),
        feature({
          name: "first",
          needs: [],
          build: () => ({ label: "A" }),
          parts: {
            thing: (s: { label: string }, of: { n: number }) => ({ a: `${s.label}${of.n}`, shared: 1 }),
          },
        }),
        feature({ name: "plain", needs: [], build: () => ({}) }),
        feature({
          name: "second",
          needs: [],
          build: () => ({ label: "B" }),
          parts: {
            thing: async (s: { label: string }, of: { n: number }) => ({ b: `${s.label}${of.n}`, shared: 2 }),
          },
        }),
      ],
      {},
      noAuth,
    );
    const parts = k.parts as unknown as { fill(r: string, of: unknown): Promise<Record<string, unknown>> };
    // Both parts are asked with what the owner gives; a later feature's field wins a clash (list order).
    expect(await parts.fill("thing", { n: 7 })).toEqual({ a: "A7", b: "B7", shared: 2 });
    // A resource no feature adds to gets no fields.
    expect(await parts.fill("other", { n: 1 })).toEqual({});
  });
});
