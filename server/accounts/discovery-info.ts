// What GET /api says about accounts: the identity provider a bot author signs up with, or null on a
// ladder without accounts. Filled in by the accounts module.
import type { Config } from "../config.ts";

export interface AccountsInfo {
  identity_url: string;
  publishable_key: string;
}

/** What it reads: the accounts mode and, for the built-in provider, where it runs. */
interface AccountsSource {
  config: Pick<Config, "accounts" | "authUrl" | "authPublishableKey">;
  identity: { url: string; publishableKey: string } | null;
}

export function accountsInfo(ctx: AccountsSource): AccountsInfo | null {
  const { config } = ctx;
  if (config.accounts === "builtin" && ctx.identity)
    return { identity_url: ctx.identity.url, publishable_key: ctx.identity.publishableKey };
  if (config.accounts === "external" && config.authUrl && config.authPublishableKey)
    return { identity_url: config.authUrl.replace(/\/$/, ""), publishable_key: config.authPublishableKey };
  return null;
}
