// What the running server keeps of the tool endpoint (GET /api's `mcp`, the OAuth routes).
import type { McpOAuth } from "./oauth.ts";

/** The tool endpoint: the OAuth service it trusts and whether it is on right now. */
export interface McpService {
  oauth: McpOAuth;
  /** On unless the start-up flag or the live setting turned it off. */
  enabled(): boolean;
}
