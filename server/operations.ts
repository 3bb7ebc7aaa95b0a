// Every operation the server mounts, in one list: app.ts mounts them all, /openapi.json documents those with a
// `doc`, and a later MCP tool list (issue 18) is derived from the same entries. A function, not a constant:
// the discovery operations are in the list and read the document built from it, so neither module may touch
// the other's values while the two are still loading.

import { ADMIN_OPERATIONS } from "./admin/routes.ts";
import { SETTINGS_OPERATIONS } from "./admin/settings-routes.ts";
import { ANNOUNCEMENT_OPERATIONS } from "./announcements/routes.ts";
import { EVENT_OPERATIONS } from "./events/routes.ts";
import type { AnyOperation } from "./kernel/operation.ts";
import { DATA_OPERATIONS } from "./ladders/data-routes.ts";
import { LADDER_OPERATIONS } from "./ladders/routes.ts";
import { MAIL_OPERATIONS } from "./mail/routes.ts";
import { MCP_OPERATIONS } from "./mcp/routes.ts";
import { OPS_OPERATIONS } from "./ops/routes.ts";
import { ACCOUNT_OPERATIONS } from "./routes/account.ts";
import { BOT_OPERATIONS } from "./routes/bots.ts";
import { DISCOVERY_OPERATIONS } from "./routes/discovery.ts";
import { DOCS_OPERATIONS } from "./routes/docs.ts";
import { DOWNLOAD_OPERATIONS } from "./routes/downloads.ts";
import { REPLAY_OPERATIONS } from "./routes/matches.ts";

let all: readonly AnyOperation[] | null = null;

/** In the order of the public document: discovery and documents, data, registration and bots, ladders. */
export function allOperations(): readonly AnyOperation[] {
  all ??= [
    ...DISCOVERY_OPERATIONS,
    ...DOCS_OPERATIONS,
    ...DOWNLOAD_OPERATIONS,
    ...DATA_OPERATIONS,
    ...REPLAY_OPERATIONS,
    ...BOT_OPERATIONS,
    ...LADDER_OPERATIONS,
    ...ACCOUNT_OPERATIONS,
    ...SETTINGS_OPERATIONS,
    ...ADMIN_OPERATIONS,
    ...MCP_OPERATIONS,
    ...EVENT_OPERATIONS,
    ...MAIL_OPERATIONS,
    ...ANNOUNCEMENT_OPERATIONS,
    ...OPS_OPERATIONS,
  ] as readonly AnyOperation[];
  return all;
}
