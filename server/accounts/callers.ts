// What each auth rule of an operation (server/kernel/operation.ts) resolves its caller to. Declared here, by
// the domain that checks credentials (accounts.ts), so the kernel needs no import of accounts or bots.

import type { Authenticate } from "../kernel/operation.ts";
import type { BotRow } from "../store/types.ts";
import type { Accounts, AgentCaller, Caller, Registrant } from "./accounts.ts";

declare module "../kernel/operation.ts" {
  interface Callers {
    none: null;
    session: Caller;
    session_handle: Caller;
    admin: Caller;
    registrant: Registrant;
    agent_key: AgentCaller;
    bot_token: BotRow;
  }
}

/** Each auth rule checked by the accounts: the caller it resolves to, or the catalog's refusal (thrown). */
export function authenticateWith(accounts: Accounts): Authenticate {
  return async (rule, req, reply) => {
    switch (rule) {
      case "none":
        return null;
      case "admin":
        return accounts.admin(req, reply);
      case "registrant":
        return accounts.registrant(req);
      case "agent_key":
        return accounts.agentBearer(req);
      case "bot_token":
        return accounts.botBearer(req);
      default:
        return accounts.session(req, reply, { handle: rule === "session_handle" });
    }
  };
}
