// The WebSocket doors as a feature: the one `upgrade` listener of the HTTP server, and the budgets every socket
// pays before any work. A feature that serves a socket opens its door here (`open("/bot", ...)`), so the paths and
// their refusals live in one place. Every refusal is one small write before any work: the client's address budgets
// (the real client's address, behind a trusted proxy), then the server's budget of unauthenticated upgrades; only
// then the handshake and the token or ticket check, which the door's owner does.
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { clientAddress, trustRule } from "../client-address.ts";
import type { capConnections } from "../http-limits.ts";
import { endUpgrade } from "../http-limits.ts";
import { defineFeature } from "../kernel/feature.ts";
import { AddressLimits, tooManyConnects } from "./address-limits.ts";
import { serverBusy, UpgradeBudget } from "./upgrade-budget.ts";

/** Takes an upgrade that passed the budgets; `addr` is the client's address. */
export type DoorHandler = (req: IncomingMessage, socket: Socket, head: Buffer, addr: string) => void;

export interface Doors {
  /** Per-address budgets of connects and failed authentications. */
  readonly addressLimits: AddressLimits;
  /** The server's budget of upgrades not yet authenticated. */
  readonly upgradeBudget: UpgradeBudget;
  /** Serves WebSocket upgrades at `path` with `handler`. */
  open(path: string, handler: DoorHandler): void;
}

declare module "../kernel/feature.ts" {
  interface Services {
    /** The server-wide connection cap, made with the HTTP server (server/http-limits.ts). */
    connections: ReturnType<typeof capConnections>;
    doors: Doors;
  }
}

const NOT_FOUND =
  'HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n{"error":"no WebSocket at this path","code":"not_found"}';

export const doorsFeature = defineFeature({
  name: "doors",
  needs: ["connections"],
  build: (kernel, { connections }): Doors => {
    const { config, http } = kernel;
    const trust = trustRule(config.trustProxy);
    const handlers = new Map<string, DoorHandler>();
    const addressLimits = new AddressLimits({
      connectsPerMinute: config.socketConnectsPerMinute,
      authFailuresPerMinute: config.socketAuthFailuresPerMinute,
    });
    const upgradeBudget = new UpgradeBudget(config.upgradesPerSecond);
    http.server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
      const handler = handlers.get((req.url ?? "").split("?")[0]!);
      if (!handler) return endUpgrade(socket, NOT_FOUND);
      const addr = clientAddress(req, trust);
      if (!connections.holdUpgrade(socket, addr)) return;
      const wait = addressLimits.admit(addr);
      if (wait !== null) return endUpgrade(socket, tooManyConnects(wait));
      const busy = upgradeBudget.take();
      if (busy !== null) return endUpgrade(socket, serverBusy(busy));
      handler(req, socket, head, addr);
    });
    return {
      addressLimits,
      upgradeBudget,
      open: (path, handler) => {
        if (handlers.has(path)) throw new Error(`a WebSocket door is already open at ${path}`);
        handlers.set(path, handler);
      },
    };
  },
});
