// What GET /api says about accounts: the identity provider a bot author signs up with, or null on a
// ladder without accounts. Filled in by the accounts module.
import type { AppContext } from "../context.ts";

export interface AccountsInfo {
  identity_url: string;
  publishable_key: string;
}

export function accountsInfo(_ctx: AppContext): AccountsInfo | null {
  return null;
}
