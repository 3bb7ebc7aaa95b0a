// Staff actions on accounts and bots as a service (SPEC 3.5, 3.6, 4.6): the admin role, bans, account deletion,
// bot moderation and legacy owner keys. Each checks its rule, commits the change with its audit entry as one unit
// of work, and then makes it hold on the live server (sockets closed, sessions ended, AccountBanned announced),
// so the admin operations only find the target and shape the answer.

import type { AccountRow } from "../accounts/account-store.ts";
import { errors } from "../errors.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import type { BotRow } from "../store/types.ts";

export type ModerationDeps = Pick<Services, "accounts" | "accountStore" | "botStore" | "store"> &
  Pick<Kernel, "bus">;

/** What a staff action on a bot may be (SPEC 3.5). */
export type BotAction = "suspend" | "activate" | "ban";

export class Moderation {
  constructor(private readonly d: ModerationDeps) {}

  /** Gives or takes the admin role; no account changes its own, and a configured admin's comes from the list. */
  async setRole(a: AccountRow, role: "admin" | "player", byId: string): Promise<AccountRow> {
    const { store, accounts } = this.d;
    if (a.id === byId) throw errors.ownRole();
    if (accounts.configuredAdmin(a)) throw errors.configuredAdmin();
    if (role === "admin" && a.banned_at) throw errors.bannedCannotBeAdmin();
    return store.work(async (u) => {
      const row = await this.d.accountStore.setRole(a.id, role, u.q);
      await u.audit("admin", a.handle ?? a.id, { action: "role", role, by: byId });
      return row;
    });
  }

  /**
   * Bans an account (not an admin) or lifts its ban. SPEC 3.6: a banned account's bots are disconnected and
   * refused while the ban lasts; the listeners of AccountBanned do it, and this waits for them, so the ban has
   * taken effect when the caller answers.
   */
  async setBanned(a: AccountRow, ban: boolean, byId: string): Promise<AccountRow> {
    const { store, accounts, bus } = this.d;
    if (ban && accounts.adminNow(a)) throw errors.adminAccount();
    const action = ban ? "ban" : "unban";
    const updated = await store.work(async (u) => {
      const row = await this.d.accountStore.setBanned(a.id, ban, u.q);
      await u.audit("admin", a.handle ?? a.id, { action, by: byId });
      return row;
    });
    if (ban) await bus.emit("AccountBanned", { accountId: a.id, handle: a.handle, by: byId });
    return updated;
  }

  /** Deletes an account (not an admin): its bots (named in the answer) are banned but keep their names and history. */
  async deleteAccount(a: AccountRow, byId: string): Promise<{ bannedBots: string[] }> {
    const { store, accounts } = this.d;
    if (accounts.adminNow(a)) throw errors.adminAccount();
    const bots = await this.d.accountStore.accountBots(a.id);
    const banned = await store.work(async (u) => {
      const banned = await this.d.accountStore.deleteAccount(a.id, u.q);
      await u.audit("admin", a.handle ?? a.id, { action: "delete_account", by: byId, banned_bots: banned });
      return banned;
    });
    await accounts.endSessions(a.id, "account_deleted");
    for (const b of bots) accounts.disconnect(b.id, "banned");
    return { bannedBots: banned };
  }

  /** Suspends, reactivates or bans a player bot; a retired bot, or a banned one being reactivated, is refused. */
  async moderateBot(bot: BotRow, action: BotAction, byId: string): Promise<BotRow["status"]> {
    const { store, accounts } = this.d;
    if (bot.status === "retired" || (action !== "ban" && bot.status === "banned"))
      throw errors.botModerated(bot.status);
    await store.work(async (u) => {
      if (action === "ban") await this.d.accountStore.banBot(bot.id, u.q);
      else await this.d.botStore.setBotStatus(bot.id, action === "suspend" ? "suspended" : "active", u.q);
      await u.audit("admin", bot.name, { action, by: byId });
    });
    // Committed: close the socket (refused while suspended or banned).
    if (action !== "activate") accounts.disconnect(bot.id, action === "ban" ? "banned" : "suspended");
    return (await this.d.botStore.botById(bot.id))?.status ?? bot.status;
  }

  /** A legacy owner key (anonymous local ladders only); the key is in the answer only. */
  async createOwnerKey(name: string, maxBots: number | null, byId: string) {
    const { store } = this.d;
    return store.work(async (u) => {
      const key = await this.d.accountStore.createOwnerKey(name, maxBots, u.q);
      if (key === "taken") throw errors.ownerTaken(name);
      await u.audit("admin", name, { action: "owner_key", by: byId });
      return key;
    });
  }
}
