// Who is on the ladder right now: every connected bot and every hosted house bot, with its lobby state
// (SPEC 3.2: idle, waiting, playing), queued version and the facts the matchmaker needs (waiting since,
// last match start, recent opponents). In memory only: queues do not survive a restart (SPEC 3.10).
import type { Strategy } from "../../engine/house/types.ts";
import type { BotConnection } from "../connection/bot-connection.ts";
import { DEFAULT_LADDER } from "../kernel/names.ts";
import type { BotRow } from "../store/types.ts";

export type LobbyState = "idle" | "waiting" | "playing";

export interface Participant {
  bot: BotRow;
  /** The live socket; null for house bots and for a bot that dropped while in a match. */
  conn: BotConnection | null;
  house: Strategy | null;
  state: LobbyState;
  version: string | null;
  /** The ladder this bot queues on (one at a time per connection); house bots serve every ladder. */
  ladderId: string;
  queuedAt: number;
  lastStartAt: number;
  /** Opponent bot id to the time their last match ended, for the rematch hold. */
  lastMet: Map<string, number>;
  /** Running matches (house bots may play several at once). */
  matches: Set<string>;
  /** Match starts in the last hour, for the hourly quota. */
  starts: number[];
  /** Reason to time of the last quota_exceeded sent, to send each at most once per 5 minutes. */
  quotaNotices: Map<string, number>;
}

/** A participant as it enters: house bots are always queued with their version, bots start idle. */
export function newParticipant(
  bot: BotRow,
  conn: BotConnection | null,
  house: Strategy | null = null,
): Participant {
  return {
    bot,
    conn,
    house,
    state: house ? "waiting" : "idle",
    version: house ? house.version : null,
    ladderId: DEFAULT_LADDER,
    queuedAt: Date.now(),
    lastStartAt: 0,
    lastMet: new Map(),
    matches: new Set(),
    starts: [],
    quotaNotices: new Map(),
  };
}

/**
 * A claim on queued bots from outside the matchmaker (a scrimmage waiting for its two bots: server/scrimmages/):
 * a claimed bot is not in any ladder's queue as the matchmakers see it, and the holder is told when it queues.
 */
export interface LobbyHold {
  /** Whether this bot is spoken for now (cheap: asked for every waiting bot on every pass). */
  claims(p: Participant): boolean;
  /** A claimed bot has just queued: the holder may start its match. */
  queued(p: Participant): void;
}

export class Lobby {
  private readonly byBot = new Map<string, Participant>();
  private readonly holds: LobbyHold[] = [];

  /** Adds a holder of bots (a feature that starts matches of its own); returns a function that removes it. */
  hold(h: LobbyHold): () => void {
    this.holds.push(h);
    return () => {
      const i = this.holds.indexOf(h);
      if (i >= 0) this.holds.splice(i, 1);
    };
  }

  /** Whether a holder has claimed this bot (it then waits for that holder, not for the matchmaker). */
  held(p: Participant): boolean {
    return !p.house && this.holds.some((h) => h.claims(p));
  }

  /** A bot has just queued (the socket hub calls this): the holder that claims it is told. */
  queued(p: Participant): void {
    if (p.house) return;
    const holder = this.holds.find((h) => h.claims(p));
    holder?.queued(p);
  }

  get(botId: string): Participant | undefined {
    return this.byBot.get(botId);
  }

  all(): Participant[] {
    return [...this.byBot.values()];
  }

  join(bot: BotRow, conn: BotConnection | null, house: Strategy | null = null): Participant {
    let p = this.byBot.get(bot.id);
    if (!p) {
      p = newParticipant(bot, conn, house);
      this.byBot.set(bot.id, p);
    } else {
      p.bot = bot;
      p.conn = conn;
    }
    return p;
  }

  /** Forgets a bot that is neither connected nor playing. */
  leaveIfGone(botId: string): void {
    const p = this.byBot.get(botId);
    if (p && !p.house && !p.conn && p.matches.size === 0) this.byBot.delete(botId);
  }

  online(): Participant[] {
    return this.all().filter((p) => p.house || p.conn);
  }

  /** The ranked queue of a ladder: waiting bots that no holder has claimed. */
  waiting(ladderId: string): Participant[] {
    return this.all()
      .filter((p) => p.state === "waiting" && p.ladderId === ladderId && !this.held(p))
      .sort((a, b) => a.queuedAt - b.queuedAt);
  }
}
