// The bus event the match runner emits (server/kernel/bus.ts lists none of a domain's events).
import type { MatchRecord } from "../store/types.ts";

declare module "../kernel/bus.ts" {
  interface DomainEvents {
    /** A match result is committed to storage (voided and human games included; `rated` says which count). */
    MatchFinished: {
      match: MatchRecord;
      rated: boolean;
      /** Per fighter: the version's rating change, or null when unrated. */
      ratingChange: [number | null, number | null];
      /**
       * Per fighter: the account that owned the bot when the match was played (null for a house bot or a bot
       * of no account), so a subscriber need not read every seat's bot back from the database.
       */
      accounts: [string | null, string | null];
    };
  }
}
