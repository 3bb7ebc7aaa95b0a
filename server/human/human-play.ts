// Human play (SPEC 1.7, 1.2 rule 8, 4.4 play ticket, 8.4): a signed-in person gets a one-minute, single-use
// ticket, opens `/human?ticket=<ticket>&opponent=<house bot>` and plays an online Public-ladder house bot over
// the same messages a bot uses (hello, ready, observation, turn, end). The person's seat has the fixed
// two-minute tick deadline; ten timeouts in a row disqualify, as for bots. Human games are mode `human`:
// stored and replayable, never rated, never in forecasts. A reconnect with a new ticket resumes the game.
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { WebSocketServer } from "ws";
import type { AccountRow, AccountStore } from "../accounts/account-store.ts";
import type { Config } from "../config.ts";
import { BotConnection } from "../connection/bot-connection.ts";
import { IDLE_MESSAGES_PER_SECOND, MAX_MESSAGE_BYTES } from "../connection/rules.ts";
import { isDbUnavailable } from "../db/db.ts";
import { CLOSES, closeFor, SOCKET_ERRORS, type SocketErrorCode } from "../errors.ts";
import { type Lobby, newParticipant, type Participant } from "../lobby/lobby.ts";
import type { RunningMatch } from "../runner/match-runner.ts";
import { ConnectionSet } from "../socket/connection-set.ts";
import type { BotRow, Store } from "../store/types.ts";

export const TICKET_MS = 60_000;

interface Ticket {
  accountId: string;
  handle: string;
  expires: number;
}

export interface HumanPlayDeps {
  config: Config;
  log: Logger;
  store: Store;
  accountStore: Pick<AccountStore, "account">;
  /** The Public ladder's house bots wait here (SPEC 1.2 rule 8). */
  lobby: Lobby;
  /** The running matches by id (a person's game is resumed from here). */
  matches: ReadonlyMap<string, RunningMatch>;
  /** The live limit on concurrent matches. */
  maxConcurrentMatches(): number;
  /** Starts a human game against a house bot; the caller owns match bookkeeping. */
  start(human: Participant, house: Participant): RunningMatch;
}

/** The seat a person plays in; its id can never be a bot's, so it cannot be claimed or queued. */
export function humanBotId(accountId: string): string {
  return `human:${accountId}`;
}

export class HumanPlay {
  private readonly tickets = new Map<string, Ticket>();
  private readonly conns: ConnectionSet;
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
  });

  constructor(private readonly d: HumanPlayDeps) {
    this.conns = new ConnectionSet(d.config.pingIntervalMs);
  }

  /** Open /human sockets. */
  get connections(): number {
    return this.conns.size;
  }

  /** POST /api/account/play-ticket. */
  issue(account: AccountRow): { ticket: string; expires_in_ms: number } {
    const now = Date.now();
    for (const [t, v] of this.tickets) if (v.expires <= now) this.tickets.delete(t);
    const ticket = `pt_${randomBytes(18).toString("base64url")}`;
    this.tickets.set(ticket, {
      accountId: account.id,
      handle: account.handle ?? account.id,
      expires: now + TICKET_MS,
    });
    return { ticket, expires_in_ms: TICKET_MS };
  }

  /** Single use: a ticket is gone once presented, valid or late. */
  private take(ticket: string | null): Ticket | null {
    if (!ticket) return null;
    const t = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    return t && t.expires > Date.now() ? t : null;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? "/", "http://x");
    const ticket = this.take(url.searchParams.get("ticket"));
    const opponent = url.searchParams.get("opponent") ?? "";
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const refuse = (code: SocketErrorCode, message: string) => {
        ws.send(JSON.stringify({ type: "error", code, message }));
        ws.close(...closeFor(code));
        setTimeout(() => ws.terminate(), 5_000).unref();
      };
      if (this.conns.closing) return void ws.close(...CLOSES.restarting);
      if (!ticket) return refuse("invalid_ticket", SOCKET_ERRORS.invalid_ticket);
      void this.admit(ticket, opponent).then(
        (r) => {
          if (ws.readyState !== ws.OPEN) return;
          if (typeof r === "string") return refuse(r, HUMAN_MESSAGES[r] ?? SOCKET_ERRORS[r]);
          this.attach(ws, ticket, r);
        },
        (err: unknown) => {
          const code = isDbUnavailable(err) ? "unavailable" : "internal";
          this.d.log.error({ err }, "human play admission failed");
          if (ws.readyState !== ws.OPEN) return;
          ws.send(JSON.stringify({ type: "error", code, message: SOCKET_ERRORS[code] }));
          ws.close(...closeFor(code));
        },
      );
    });
  }

  private async admit(ticket: Ticket, opponent: string): Promise<Participant | SocketErrorCode> {
    const account = await this.d.accountStore.account(ticket.accountId);
    if (!account) return "account_required";
    if (account.banned_at) return "account_banned";
    // A game already running for this person is resumed, whatever opponent the page names.
    if (this.running(ticket.accountId)) return this.running(ticket.accountId)!.house;
    // Only the Public ladder's house bots that are online here (SPEC 7.1 unknown_opponent).
    const house = this.d.lobby
      .all()
      .find((p) => p.house && p.bot.name.toLowerCase() === opponent.toLowerCase());
    if (!house) return "unknown_opponent";
    if (this.conns.drainDeadline) return "server_draining";
    if (this.d.matches.size >= this.d.maxConcurrentMatches()) return "capacity";
    return house;
  }

  private running(accountId: string): { match: RunningMatch; seat: number; house: Participant } | null {
    const id = humanBotId(accountId);
    for (const m of this.d.matches.values()) {
      const seat = m.seats.findIndex((s) => s.participant.bot.id === id);
      if (seat >= 0) return { match: m, seat, house: m.seats[1 - seat]!.participant };
    }
    return null;
  }

  private attach(ws: import("ws").WebSocket, ticket: Ticket, house: Participant): void {
    const now = new Date().toISOString();
    const bot: BotRow = {
      id: humanBotId(ticket.accountId),
      name: ticket.handle,
      display_name: ticket.handle,
      owner: ticket.handle,
      house: false,
      status: "active",
      avatar: null,
      created: now,
      account_id: ticket.accountId,
    };
    const conn = new BotConnection(ws, bot);
    this.conns.add(conn);
    let current = this.running(ticket.accountId);
    if (current) {
      current.match.attach(current.seat, conn);
    } else {
      // Never in the lobby: a person cannot be queued or paired, only seated here.
      const human: Participant = { ...newParticipant(bot, conn), state: "playing", version: "human" };
      const match = this.d.start(human, house);
      current = { match, seat: match.seatOf(bot.id), house };
    }
    const { match, seat } = current;
    ws.on("message", (data: Buffer, binary: boolean) => {
      if (conn.closed) return;
      if (!match.playing) {
        const r = conn.rate(IDLE_MESSAGES_PER_SECOND, Date.now());
        if (r === "flood") return void conn.close(...closeFor("rate_limited"));
        if (r === "limited") return;
      }
      let msg: unknown = binary ? null : data.toString("utf8");
      try {
        msg = JSON.parse(msg as string);
      } catch {
        // not JSON: the match refuses it as `schema`
      }
      const type = msg && typeof msg === "object" ? (msg as { type?: unknown }).type : undefined;
      if (type === "queue" || type === "leave")
        return void conn.error("schema", "a human seat plays one game; queue and leave do not apply");
      match.fromBot(seat, msg);
    });
    ws.on("close", () => {
      this.conns.delete(conn);
      if (match.seats[seat]?.conn === conn) match.detach(seat);
    });
  }

  drain(deadline: string): void {
    this.conns.drain(deadline);
  }

  closeAll(): void {
    this.conns.closeAll();
  }
}

/** Where a person needs other words than a bot (codes and defaults are in the catalog, server/errors.ts). */
const HUMAN_MESSAGES: Partial<Record<SocketErrorCode, string>> = {
  account_required: "the account no longer exists",
  account_banned: "this account is banned",
  server_draining: "the server is shutting down; no new games start",
};
