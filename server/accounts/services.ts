// The accounts domain's services: credentials and the account rules, and the built-in identity provider.

import type { Mailer } from "../mail/transport.ts";
import type { Accounts } from "./accounts.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** Credentials, accounts and the admin rule (SPEC 5). */
    accounts: Accounts;
    /** The identity provider GET /api points sign-up at: the built-in one, or null (external or none). */
    identity: { url: string; publishableKey: string; mailer: Mailer } | null;
  }
}
