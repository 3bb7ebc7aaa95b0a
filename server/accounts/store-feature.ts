// The accounts' own tables as services (issue 32: each domain's SQL lives with it): `accountStore` (accounts,
// agent keys, owner keys, bot ownership) and `identityStore` (the built-in identity provider's users, sessions
// and links). They need nothing but the database, so they come first in the feature list and every feature that
// reads an account names `accountStore` in its `needs` rather than reaching through the store registry.
import { defineFeature } from "../kernel/feature.ts";
import { AccountStore } from "./account-store.ts";
import { IdentityStore } from "./identity-store.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** Accounts, agent keys, owner keys and bot ownership (server/accounts/account-store.ts). */
    accountStore: AccountStore;
    /** The built-in identity provider's users, sessions, refresh tokens and links. */
    identityStore: IdentityStore;
  }
}

export const accountStoreFeature = defineFeature({
  name: "accountStore",
  needs: [],
  build: (kernel) => new AccountStore(kernel.db),
});

export const identityStoreFeature = defineFeature({
  name: "identityStore",
  needs: [],
  build: (kernel) => new IdentityStore(kernel.db),
});
