// The operator's metrics as a feature (SPEC 8, --metrics-token or --metrics-listen): what the meters read from the
// running server (pool, queues, matches, sockets, connections), and where /metrics is served: on the main port
// behind the token, or on a separate listener (`listen` below, once the main port is bound). Null when off.
import type { AddressInfo } from "node:net";
import { defineFeature } from "../kernel/feature.ts";
import { serveMetrics } from "./routes.ts";

export interface MetricsServer {
  /** Binds the separate listener, when there is one (--metrics-listen); its address after. */
  listen(): Promise<AddressInfo | null>;
  close(): Promise<void>;
}

declare module "../kernel/feature.ts" {
  interface Services {
    metricsServer: MetricsServer | null;
  }
}

export const metricsFeature = defineFeature({
  name: "metricsServer",
  needs: ["meters", "live", "ladders", "lobby", "hub", "humanPlay", "lifecycle"],
  build: (kernel, { meters, live, ladders, lobby, hub, humanPlay, lifecycle }): MetricsServer | null => {
    if (!meters) return null;
    const { config, http } = kernel;
    meters.watch({
      pool: live.pool,
      ladderIds: () => ladders.all().map((l) => l.id),
      queueLength: (id) => lobby.waiting(id).filter((p) => !p.house).length,
      running: (id) => live.running(id),
      sockets: () => ({ bot: hub.connections, human: humanPlay.connections }),
      connections: () =>
        new Promise((resolve) => http.server.getConnections((err, n) => resolve(err ? 0 : n))),
      draining: () => lifecycle.draining(),
    });
    const listener = serveMetrics(http, meters, config);
    return {
      listen: async () =>
        listener && config.metricsListen
          ? listener.listen(config.metricsListen.host, config.metricsListen.port)
          : null,
      close: async () => listener?.close(),
    };
  },
  stop: (server) => server?.close(),
});
