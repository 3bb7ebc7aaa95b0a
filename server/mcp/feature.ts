// The tool endpoint for AI agents as a feature (issue 18; SPEC 4.4's consent and revocation): its OAuth server
// with its own signing key (kept in the data dir beside the identity provider's, so tokens survive restarts),
// the /mcp route and the OAuth routes as its pages, the consent operations, and the hourly sweep. A ladder
// without accounts has no tool endpoint: the service is null and `GET /api` reports `mcp: null`.
import { loadIdentitySecrets } from "../accounts/signing-keys.ts";
import { defineFeature } from "../kernel/feature.ts";
import type { ScheduledJob } from "../kernel/scheduler.ts";
import { type EndpointDeps, mcpEndpoint } from "./endpoint.ts";
import { McpOAuth } from "./oauth.ts";
import { MCP_OPERATIONS, oauthRoutes } from "./routes.ts";
import type { McpService } from "./service.ts";
import { McpStore } from "./store.ts";

/** The tool endpoint and what its routes read. */
export type McpServer = McpService & { endpoint: EndpointDeps };

declare module "../kernel/feature.ts" {
  interface Services {
    /** The tool endpoint and its OAuth server; null on a ladder without accounts. */
    mcp: McpServer | null;
  }
}

/** Hourly: expired authorizations, refresh tokens and never-approved clients are deleted. */
function sweep({ endpoint }: McpServer): ScheduledJob {
  return {
    name: "mcp sweep",
    nextAt: (now) => now - (now % 3_600_000) + 3_600_000,
    run: async () => {
      try {
        await endpoint.tables.sweep();
      } catch (err) {
        endpoint.log.error({ err }, "tool endpoint sweep failed");
      }
    },
  };
}

export const mcpFeature = defineFeature({
  name: "mcp",
  needs: ["accounts", "accountStore", "store"],
  build: async (kernel, { accounts, accountStore, store }): Promise<McpServer | null> => {
    const { config, settings } = kernel;
    if (config.accounts === "none") return null;
    // Its tables (clients, authorizations, grants, keys' scopes) are its own, on the store's database.
    const tables = new McpStore(store.db);
    const oauth = new McpOAuth(
      { config, store, accountStore, tables },
      // In a cluster every node checks the tokens any node issued: one key pair for all (migration 0021).
      await loadIdentitySecrets(config.dataDir, "mcp-keys.json", config.cluster ? store.db : null),
    );
    return {
      oauth,
      // The start-up flag turns it off for the run; the live setting (`mcp: false`) while the server runs.
      enabled: () => config.mcp && settings.mcpAllowed(),
      endpoint: {
        accounts,
        accountStore,
        store,
        tables,
        config,
        log: kernel.log,
        boundOperations: kernel.boundOperations,
      },
    };
  },
  operations: MCP_OPERATIONS,
  // The account's tool endpoint and approved clients in GET /api/account (SPEC 2 Account `mcp_url`, `mcp_clients`).
  parts: {
    account: async (mcp, { accountId }) => ({
      mcp_url: mcp?.enabled() ? mcp.oauth.at.resource : null,
      mcp_clients: mcp ? await mcp.oauth.clients(accountId) : [],
    }),
  },
  pages: async (http, mcp) => {
    if (!mcp) return;
    mcpEndpoint(http, mcp.endpoint, mcp);
    await oauthRoutes(http, mcp);
  },
  jobs: (mcp) => (mcp ? [sweep(mcp)] : []),
});
