// The features of the server, in build order (server/kernel/feature.ts): a feature comes after every feature
// it needs, and stops before them. Adding a feature is one line here. The first part is the core of the ladder
// (results, matches, ladders, sockets, accounts, events, mail), the second the APIs and pages built on it; the
// second part's order is also the order of the operations in /openapi.json and of the MCP tool list.

import { accountsFeature, accountsSetUpFeature, identityFeature } from "./accounts/accounts-feature.ts";
import { accountFeature } from "./accounts/feature.ts";
import { accountStoreFeature, identityStoreFeature } from "./accounts/store-feature.ts";
import { auditStoreFeature } from "./admin/audit-feature.ts";
import { adminFeature } from "./admin/feature.ts";
import { settingsFeature } from "./admin/settings-feature.ts";
import { announcementsFeature } from "./announcements/feature.ts";
import { botsFeature } from "./bot-api/feature.ts";
import { botDirectoryFeature } from "./bots/directory-feature.ts";
import { botLifecycleFeature } from "./bots/lifecycle-feature.ts";
import { botStoreFeature } from "./bots/store-feature.ts";
import { clusterFeature } from "./cluster/feature.ts";
import { discoveryFeature } from "./discovery/feature.ts";
import { docsFeature } from "./docs/feature.ts";
import { eventsFeature } from "./events/feature.ts";
import { eventsServiceFeature } from "./events/service-feature.ts";
import { humanPlayFeature } from "./human/feature.ts";
import { insightFeature } from "./insight/feature.ts";
import type { AnyFeature } from "./kernel/feature.ts";
import { dataFeature } from "./ladders/data-feature.ts";
import { laddersFeature as ladderApiFeature } from "./ladders/feature.ts";
import { laddersFeature, ladderTablesFeature, membershipFeature } from "./ladders/runtime-feature.ts";
import { houseBotsFeature, lobbyFeature } from "./lobby/feature.ts";
import { mailFeature } from "./mail/feature.ts";
import { mailServiceFeature } from "./mail/service-feature.ts";
import { mcpFeature } from "./mcp/feature.ts";
import { metricsFeature } from "./metrics/feature.ts";
import { openDataFeature } from "./opendata/feature.ts";
import { opsFeature } from "./ops/feature.ts";
import { healthFeature } from "./ops/health-feature.ts";
import { liveFeature, matchesFeature } from "./play/feature.ts";
import { ratingStoreFeature } from "./ratings/store-feature.ts";
import { readsFeature } from "./reads/feature.ts";
import { replayShareFeature } from "./replay-share/feature.ts";
import { replayFilesFeature, resultsFeature } from "./results/feature.ts";
import { matchStoreFeature } from "./results/store-feature.ts";
import { scrimmagesFeature } from "./scrimmages/feature.ts";
import { settlementFeature } from "./settlement/feature.ts";
import { webFeature } from "./site/feature.ts";
import { doorsFeature } from "./socket/doors.ts";
import { hubFeature } from "./socket/feature.ts";
import { replaysFeature } from "./spectate/feature.ts";
import { tournamentsFeature } from "./tournaments/feature.ts";
import { pagePartsFeature } from "./web/page-parts.ts";

export const FEATURES: readonly AnyFeature[] = [
  // The core: what a match needs, from its result back to the socket it is played on.
  accountStoreFeature,
  identityStoreFeature,
  auditStoreFeature,
  ratingStoreFeature,
  botStoreFeature,
  matchStoreFeature,
  replayFilesFeature,
  resultsFeature,
  healthFeature,
  lobbyFeature,
  liveFeature,
  matchesFeature,
  ladderTablesFeature,
  laddersFeature,
  membershipFeature,
  botDirectoryFeature,
  readsFeature,
  doorsFeature,
  hubFeature,
  humanPlayFeature,
  accountsSetUpFeature,
  accountsFeature,
  identityFeature,
  botLifecycleFeature,
  eventsServiceFeature,
  mailServiceFeature,
  metricsFeature,
  clusterFeature,
  houseBotsFeature,
  // The APIs and pages.
  pagePartsFeature,
  mcpFeature,
  discoveryFeature,
  docsFeature,
  insightFeature,
  dataFeature,
  scrimmagesFeature,
  settlementFeature,
  tournamentsFeature,
  replaysFeature,
  replayShareFeature,
  openDataFeature,
  botsFeature,
  ladderApiFeature,
  accountFeature,
  settingsFeature,
  announcementsFeature,
  adminFeature,
  eventsFeature,
  mailFeature,
  opsFeature,
  webFeature,
];
