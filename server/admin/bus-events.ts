// The bus event staff actions emit (routes.ts's ban).
declare module "../kernel/bus.ts" {
  interface DomainEvents {
    /** An account was banned (SPEC 3.6). */
    AccountBanned: { accountId: string; handle: string | null; by: string };
  }
}

export {};
