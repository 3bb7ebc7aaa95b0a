// What each auth rule of an operation (server/kernel/operation.ts) resolves its caller to. Declared here, by
// the domain that checks credentials (accounts.ts), so the kernel needs no import of accounts or bots.
import type { BotRow } from "../store/types.ts";
import type { AgentCaller, Caller, Registrant } from "./accounts.ts";

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
