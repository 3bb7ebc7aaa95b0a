// What the routes and services of one running server share. Built once by buildApp; no globals.

import type { Logger } from "pino";
import type { MatchPool } from "../pool/pool.ts";
import type { Accounts } from "./auth/accounts.ts";
import type { Mailer } from "./auth/mailer.ts";
import type { BotDirectory } from "./bots/directory.ts";
import type { Config } from "./config.ts";
import type { Events } from "./events/service.ts";
import type { HumanPlay } from "./human/human-play.ts";
import type { EventBus } from "./kernel/bus.ts";
import type { BoundOperation, Services } from "./kernel/feature.ts";
import type { AnyOperation } from "./kernel/operation.ts";
import type { Scheduler } from "./kernel/scheduler.ts";
import type { Settings } from "./kernel/settings.ts";
import type { Lobby } from "./ladder/lobby.ts";
import type { Membership } from "./ladders/membership.ts";
import type { LadderReads } from "./ladders/reads.ts";
import type { Ladders } from "./ladders/registry.ts";
import type { MailService } from "./mail/mail.ts";
import type { McpServer } from "./mcp/feature.ts";
import type { HealthMonitor } from "./ops/health.ts";
import type { LiveMatches } from "./play/live-matches.ts";
import type { ReplayFiles } from "./replays.ts";
import type { RunningMatch } from "./runner/match-runner.ts";
import type { BotHub } from "./socket/hub.ts";
import type { Store } from "./store/types.ts";

export interface AppContext {
  config: Config;
  /** Credentials, accounts and the admin rule (SPEC 5). */
  accounts: Accounts;
  /** Play tickets and the `/human` socket (SPEC 1.7). */
  humanPlay: HumanPlay;
  /** The identity provider GET /api points sign-up at: the built-in one, or null (external or none). */
  identity: { url: string; publishableKey: string; mailer: Mailer } | null;
  store: Store;
  pool: MatchPool;
  lobby: Lobby;
  hub: BotHub;
  /** Every ladder of the manifest, each with its rating book, matchmaker and quotas. */
  ladders: Ladders;
  /** Every bot and its retired versions in memory, for the read paths that list many bots. */
  bots: BotDirectory;
  /** Public ladder data (leaderboard, lobby, status, bots, users, matches) for routes and pages. */
  reads: LadderReads;
  /** The running matches. */
  live: LiveMatches;
  /** Ladder membership and invitations (SPEC 3.7). */
  membership: Membership;
  /** Timed events with achievements (server/events/). */
  events: Events;
  /** Rolling five-minute server health (GET /api/admin/health). */
  health: HealthMonitor;
  /** The email outbox, unsubscribe tokens and incidents (server/mail/). */
  mail: MailService;
  /** Domain events: MatchFinished, LadderPhaseChanged, ... */
  bus: EventBus;
  /** The one reader of live limits. */
  settings: Settings;
  /** One clock for timed work (ladder phases). */
  scheduler: Scheduler;
  replays: ReplayFiles;
  log: Logger;
  /** Running matches by id. */
  matches: Map<string, RunningMatch>;
  draining: boolean;
  /** The tool endpoint and its OAuth server (server/mcp); null on a ladder without accounts. */
  mcp: McpServer | null;
  /** Every operation the server mounts (server/operations.ts): what /openapi.json and `GET /api` list. */
  operations: readonly AnyOperation<unknown>[];
  /** Every operation with the services it runs with, which the tool endpoint's tools are made from. */
  boundOperations: readonly BoundOperation[];
  /** The features' services (server/features.ts), for the domains not moved into features yet. */
  services: Services;
}

// The kernel's operations hand the domains not moved into features yet this context (see LegacyContext there).
declare module "./kernel/operation.ts" {
  interface LegacyContext extends AppContext {}
}
