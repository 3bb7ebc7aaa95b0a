// The ladders' services other features use: the registry and membership (the public reads: server/reads/).
import type { Membership } from "./membership.ts";
import type { Ladders } from "./registry.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** Every ladder of the manifest, each with its rating book, matchmaker and quotas. */
    ladders: Ladders;
    /** Ladder membership and invitations (SPEC 3.7). */
    membership: Membership;
  }
}
