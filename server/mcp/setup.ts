// Puts the tool endpoint together (issue 18): its OAuth server with its own signing key (kept in the data dir
// beside the identity provider's, so tokens survive restarts), the /mcp route and the OAuth routes. A ladder
// without accounts has no tool endpoint (`GET /api` reports `mcp: null`).
import type { FastifyInstance } from "fastify";
import { loadIdentitySecrets } from "../auth/signing-keys.ts";
import type { AppContext } from "../context.ts";
import { mcpEndpoint } from "./endpoint.ts";
import { McpOAuth } from "./oauth.ts";
import { oauthRoutes } from "./routes.ts";

export async function setUpMcp(http: FastifyInstance, ctx: AppContext): Promise<void> {
  const { config, settings } = ctx;
  if (config.accounts === "none") {
    ctx.mcp = null;
    return;
  }
  const oauth = new McpOAuth(ctx, await loadIdentitySecrets(config.dataDir, "mcp-keys.json"));
  // The start-up flag turns it off for the run; the live setting (`mcp: false`) while the server runs.
  ctx.mcp = { oauth, enabled: () => config.mcp && settings.mcpAllowed() };
  mcpEndpoint(http, ctx, ctx.mcp);
  // Hourly: expired authorizations, refresh tokens and never-approved clients are deleted.
  ctx.scheduler.add({
    name: "mcp sweep",
    nextAt: (now) => now - (now % 3_600_000) + 3_600_000,
    run: async () => {
      try {
        await ctx.store.mcp.sweep();
      } catch (err) {
        ctx.log.error({ err }, "tool endpoint sweep failed");
      }
    },
  });
  await oauthRoutes(http, ctx.mcp);
}
