// The features of the server, in build order (server/kernel/feature.ts): a feature comes after every feature
// it needs. Adding a feature is one line here; the domains not moved into features yet are handed to them by
// server/app.ts as provided services (each declared beside its owner, in a services.ts). The order is also the
// order of the operations in /openapi.json and of the MCP tool list.
import { adminFeature } from "./admin/feature.ts";
import { settingsFeature } from "./admin/settings-feature.ts";
import { announcementsFeature } from "./announcements/feature.ts";
import { accountFeature } from "./auth/feature.ts";
import { botsFeature } from "./bots/feature.ts";
import { docsFeature } from "./docs/feature.ts";
import { eventsFeature } from "./events/feature.ts";
import { insightFeature } from "./insight/feature.ts";
import type { AnyFeature } from "./kernel/feature.ts";
import { dataFeature } from "./ladders/data-feature.ts";
import { laddersFeature } from "./ladders/feature.ts";
import { mailFeature } from "./mail/feature.ts";
import { mcpFeature } from "./mcp/feature.ts";
import { openDataFeature } from "./opendata/feature.ts";
import { opsFeature } from "./ops/feature.ts";
import { replayShareFeature } from "./replay-share/feature.ts";
import { discoveryFeature } from "./routes/discovery-feature.ts";
import { replaysFeature } from "./spectate/feature.ts";
import { webFeature } from "./web/feature.ts";

export const FEATURES: readonly AnyFeature[] = [
  mcpFeature,
  discoveryFeature,
  docsFeature,
  dataFeature,
  insightFeature,
  replaysFeature,
  replayShareFeature,
  openDataFeature,
  botsFeature,
  laddersFeature,
  accountFeature,
  settingsFeature,
  announcementsFeature,
  adminFeature,
  eventsFeature,
  mailFeature,
  opsFeature,
  webFeature,
];
