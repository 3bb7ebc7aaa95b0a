// A bot's life as a service (SPEC 3.4, 4.2, 4.4): registered, renamed, given a new token or avatar, claimed into
// an account, deleted or retired. Each change and its audit entry are one unit of work, and what the change means
// for the live server (a socket closed, the lobby's copy of the bot refreshed) happens here after the commit, so
// the bots' API, the account API and their MCP tools only parse, authorise and shape the answer.
//
// Who owns a new bot and how many it may have is the caller's to decide (the accounts know registrants: an
// account, a legacy owner key, an anonymous local bot); this service takes the decided owner.
import type { SocketErrorCode } from "../errors.ts";
import { errors } from "../errors.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import type { BotRow } from "../store/types.ts";
import { NameTakenError } from "./bot-store.ts";

/** What a bot change does to the live server: the accounts service provides it (server/accounts/accounts.ts). */
export interface LiveBotControl {
  /** Closes a connected bot's socket with a connection error. */
  disconnect(botId: string, code: SocketErrorCode): void;
  /** Copies changed bot fields (name, owner, avatar) into the live lobby entry, so matches see them. */
  refreshLive(bot: BotRow): void;
  /** Whether the bot is seated in a running match. */
  inMatch(botId: string): boolean;
}

/** The decided owner of a bot being registered: its name, its account (if any), its bot limit, and the client. */
export interface BotOwner {
  name: string;
  accountId: string | null;
  limit: number;
  /** The client an audit entry names (`account:<id>`, `agent_key:<id>`, `owner_key:<id>`, `anonymous`). */
  client: string;
}

export type BotLifecycleDeps = Pick<Services, "store" | "accountStore" | "botStore" | "lobby"> &
  Pick<Kernel, "config"> & { live: LiveBotControl };

const NOTE =
  "Keep this token secret: it is shown once. Connect with the header Authorization: Bearer <token>.";

export class BotLifecycle {
  constructor(private readonly d: BotLifecycleDeps) {}

  /** Registers a bot for a decided owner, within the owner's limit; the token is in the answer only. */
  async register(owner: BotOwner, name: string) {
    const { store, config } = this.d;
    const count = owner.accountId
      ? await this.d.accountStore.countBots(owner.accountId)
      : await this.d.botStore.countActiveBots(owner.name);
    if (count >= owner.limit) throw errors.botLimit(owner.limit);
    try {
      const { bot, token } = await store.work(async (u) => {
        const made = await this.d.botStore.createBot(
          { name, owner: owner.name, house: false, account_id: owner.accountId },
          u.q,
        );
        await u.audit("registration", made.bot.name, { owner: owner.name, client: owner.client });
        return made;
      });
      return {
        name: bot.name,
        token: token!,
        bot_endpoint: `${config.publicUrl.replace(/^http/, "ws")}/bot`,
        note: NOTE,
      };
    } catch (err) {
      if (err instanceof NameTakenError) throw errors.invalidBot(`the name ${JSON.stringify(name)} is taken`);
      throw err;
    }
  }

  /**
   * SPEC 3.4. "retire" (DELETE /api/account/bots): a bot that never played is deleted, one that played is
   * retired. "delete" (DELETE /api/bots): only a bot that never played is deleted; a played one is refused
   * with bot_has_played unless it is retired already. Moderated bots cannot be removed.
   */
  async remove(
    bot: BotRow,
    mode: "retire" | "delete",
    client: string,
  ): Promise<{ name: string; outcome: "deleted" | "retired" }> {
    const { store, live } = this.d;
    if (bot.status === "suspended" || bot.status === "banned") throw errors.botModerated(bot.status);
    if (bot.status === "retired") return { name: bot.name, outcome: "retired" };
    // A bot in its first match has played, even though the result is not stored yet.
    const played = live.inMatch(bot.id) || (await this.d.accountStore.hasPlayed(bot.id));
    const deleted =
      !played &&
      (await store.work(async (u) => {
        const gone = await this.d.accountStore.deleteUnplayedBot(bot.id, u.q);
        if (gone) await u.audit("bot_deleted", bot.name, { client });
        return gone;
      }));
    if (deleted) {
      live.disconnect(bot.id, "invalid_token");
      this.d.lobby.leaveIfGone(bot.id);
      return { name: bot.name, outcome: "deleted" };
    }
    if (mode === "delete") throw errors.botHasPlayed(bot.name);
    await store.work(async (u) => {
      await this.d.botStore.setBotStatus(bot.id, "retired", u.q);
      await u.audit("bot_retired", bot.name, { client });
    });
    live.disconnect(bot.id, "retired");
    return { name: bot.name, outcome: "retired" };
  }

  /** A new name (not while moderated or in a match); `accountId` is the owner the audit names. */
  async rename(bot: BotRow, name: string, accountId: string): Promise<{ name: string }> {
    const { store, live } = this.d;
    if (bot.status === "suspended" || bot.status === "banned") throw errors.botModerated(bot.status);
    if (live.inMatch(bot.id)) throw errors.botInMatch(bot.name);
    if (name === bot.name) return { name };
    const renamed = await store.work(async (u) => {
      const row = await this.d.accountStore.renameBot(bot.id, name, u.q);
      if (row === "taken") throw errors.invalidBot(`the name ${JSON.stringify(name)} is taken`);
      await u.audit("rename", row.name, { from: bot.name, account: accountId });
      return row;
    });
    live.refreshLive(renamed);
    return { name: renamed.name };
  }

  /**
   * A new token; the old one stops working at once, also on a connected socket. `by` is what the audit entry
   * records of the caller (`{ account }` from the account API, `{ client: "bot_token" }` from the bot itself).
   */
  async rotateToken(bot: BotRow, by: Record<string, string>): Promise<string> {
    const { store, live } = this.d;
    const token = await store.work(async (u) => {
      const t = await this.d.botStore.rotateToken(bot.id, u.q);
      await u.audit("token_rotated", bot.name, by);
      return t;
    });
    live.disconnect(bot.id, "invalid_token");
    return token;
  }

  /** A bot's avatar (the caller checked it is one of SPEC 2's), or null for the plain orb. */
  async setAvatar(bot: BotRow, avatar: string | null): Promise<void> {
    await this.d.accountStore.setAvatar(bot.id, avatar);
    this.d.live.refreshLive({ ...bot, avatar });
  }

  /**
   * Moves an unowned bot into an account, keeping its token, versions and history; `limit` is the account's bot
   * limit (a retired bot does not count against it).
   */
  async claim(bot: BotRow, account: { id: string; handle: string }, limit: number): Promise<void> {
    const { store, live } = this.d;
    if (bot.account_id !== null || bot.house) throw errors.alreadyClaimed();
    if (bot.status !== "retired" && (await this.d.accountStore.countBots(account.id)) >= limit)
      throw errors.botLimit(limit);
    await store.work(async (u) => {
      if (!(await this.d.accountStore.claimBot(bot.id, account.id, account.handle, u.q)))
        throw errors.alreadyClaimed();
      await u.audit("claim", bot.name, { account: account.id, previous_owner: bot.owner });
    });
    live.refreshLive({ ...bot, account_id: account.id, owner: account.handle });
  }
}
