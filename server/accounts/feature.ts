// The signed-in account's own API as a feature (SPEC 4.4: the account, its handle, keys, bots, claims, play
// tickets and email preferences): its operations, handed the accounts, the account's own changes
// (account-changes.ts) and the bot lifecycle (server/bots/lifecycle.ts), human play, the lobby, the tool endpoint,
// the store, the config and the live limits.
import { defineFeature } from "../kernel/feature.ts";
import { AccountChanges } from "./account-changes.ts";
import { ACCOUNT_OPERATIONS, type AccountServices } from "./account-routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    account: AccountServices;
  }
}

export const accountFeature = defineFeature({
  name: "account",
  needs: [
    "accounts",
    "accountStore",
    "botLifecycle",
    "botStore",
    "humanPlay",
    "insight",
    "lobby",
    "mcp",
    "store",
  ],
  build: (kernel, deps) => ({
    ...deps,
    config: kernel.config,
    settings: kernel.settings,
    changes: new AccountChanges({
      store: deps.store,
      accountStore: deps.accountStore,
      accounts: deps.accounts,
      config: kernel.config,
    }),
  }),
  operations: ACCOUNT_OPERATIONS,
});
