// What GET /api says about accounts: the identity provider a bot author signs up with, or null on a
// ladder without accounts. Filled in by the accounts module.
import type { AppContext } from "../context.ts";

export interface AccountsInfo {
  identity_url: string;
  publishable_key: string;
}

export function accountsInfo(ctx: AppContext): AccountsInfo | null {
  const { config } = ctx;
  if (config.accounts === "builtin" && ctx.identity)
    return { identity_url: ctx.identity.url, publishable_key: ctx.identity.publishableKey };
  if (config.accounts === "external" && config.authUrl && config.authPublishableKey)
    return { identity_url: config.authUrl.replace(/\/$/, ""), publishable_key: config.authPublishableKey };
  return null;
}
