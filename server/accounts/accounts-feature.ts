// Accounts as features (SPEC 5): the set-up for the configured mode (none, an external identity provider, the
// built-in one), the accounts with their credentials and rules (`accounts`), and the identity provider that
// `GET /api` points sign-up at (`identity`, whose built-in routes at /auth/v1 are its pages). The accounts add
// their rule to the bot socket (no owner account, a banned account) and close a banned account's sockets.
import { defineFeature } from "../kernel/feature.ts";
import { identityProvider } from "./identity-provider.ts";
import { type AccountsSetUp, setUpAccounts } from "./setup.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** What the set-up made: the accounts, the identity provider's address and the built-in provider's deps. */
    accountsSetUp: AccountsSetUp;
  }
}

export const accountsSetUpFeature = defineFeature({
  name: "accountsSetUp",
  needs: ["store", "accountStore", "auditStore", "botStore", "identityStore", "hub", "lobby", "live"],
  build: (kernel, { store, accountStore, auditStore, botStore, identityStore, hub, lobby, live }) =>
    setUpAccounts(
      { config: kernel.config, store, accountStore, auditStore, botStore, identityStore, log: kernel.log },
      {
        disconnect: (botId, code) => hub.disconnect(botId, code),
        liveBot: (botId) => lobby.get(botId),
        inMatch: (botId) => {
          for (const m of live.byId.values())
            if (m.seats.some((s) => s.participant.bot.id === botId)) return true;
          return false;
        },
      },
      kernel.http,
    ),
  // The built-in identity provider's routes (/auth/v1), when this server is its own provider.
  pages: (http, setUp) => {
    if (setUp.provider) identityProvider(http, setUp.provider);
  },
});

export const accountsFeature = defineFeature({
  name: "accounts",
  needs: ["accountsSetUp", "hub", "accountStore"],
  build: (_kernel, { accountsSetUp, hub }) => {
    const { accounts } = accountsSetUp;
    hub.admitWith((bot) => accounts.admit(bot));
    return accounts;
  },
  listeners: (accounts, _kernel, { accountStore }) => ({
    // A banned account's bots are disconnected and refused while the ban lasts (SPEC 3.6).
    AccountBanned: async (e) => {
      for (const b of await accountStore.accountBots(e.accountId))
        accounts.disconnect(b.id, "account_banned");
    },
  }),
});

export const identityFeature = defineFeature({
  name: "identity",
  needs: ["accountsSetUp"],
  build: (_kernel, { accountsSetUp }) => accountsSetUp.identity,
});
