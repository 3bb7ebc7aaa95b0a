// An account's own changes as a service (SPEC 4.4): its handle and its agent keys. Each change and its audit entry
// are one unit of work, and a new handle reaches the live lobby's copies of the account's bots after the commit,
// so the account operations only parse the request and shape the answer.
import type { Config } from "../config.ts";
import { errors } from "../errors.ts";
import type { Store } from "../store/types.ts";
import { type AccountRow, type AccountStore, MAX_AGENT_KEYS } from "./account-store.ts";
import type { Accounts } from "./accounts.ts";

export class AccountChanges {
  constructor(
    private readonly d: { store: Store; accountStore: AccountStore; accounts: Accounts; config: Config },
  ) {}

  /** Chooses or changes the handle; the account's bots are renamed to the new owner. */
  async setHandle(account: AccountRow, handle: string): Promise<AccountRow> {
    const { store, accountStore, accounts } = this.d;
    if (handle.toLowerCase() === "house") throw errors.handleTaken(handle);
    const row = await store.work(async (u) => {
      const r = await accountStore.setHandle(account.id, handle, u.q);
      // Thrown inside the unit: on PostgreSQL a clash may have aborted the transaction, which must roll back.
      if (r === "taken") throw errors.handleTaken(handle);
      await u.audit("handle", handle, { account: account.id, previous: account.handle });
      return r;
    });
    for (const b of await accountStore.accountBots(account.id)) accounts.refreshLive(b);
    return row;
  }

  /** A new agent key (at most MAX_AGENT_KEYS, creations throttled per account); the key is in the answer only. */
  async createKey(accountId: string, label: string, expiresInDays: number | null) {
    const { store, accountStore, accounts, config } = this.d;
    await accounts.throttle("key creations", accountId, config.registrationRateLimit, 3600_000);
    return store.work(async (u) => {
      const made = await accountStore.createKey(accountId, label, expiresInDays, u.q);
      if (made === "limit") throw errors.keyLimit(MAX_AGENT_KEYS);
      await u.audit("agent_key", made.row.id, { account: accountId, action: "created" });
      return made;
    });
  }

  /** Revokes one of the account's agent keys at once; another account's key is no_such_key. */
  async revokeKey(accountId: string, keyId: string): Promise<void> {
    const { store, accountStore } = this.d;
    await store.work(async (u) => {
      if (!(await accountStore.revokeKey(accountId, keyId, u.q))) throw errors.noSuchKey(keyId);
      await u.audit("agent_key", keyId, { account: accountId, action: "revoked" });
    });
  }
}
