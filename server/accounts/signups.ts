// Pending sign-ups of an address that is not confirmed yet (issue 31): no sign-up takes another's place or
// carries its credentials, so a later sign-up, a configured admin's address included, cannot take the account.
// Each pending sign-up is one person's: its own password, metadata and PKCE challenge, on its own link.
import type { IdentityStore, IdentityUser, OneTimeRow } from "./identity-store.ts";
import { idpError } from "./idp-shapes.ts";
import { type LinkMail, REPEAT_EVERY_MS } from "./links.ts";
import { checkPassword, DUMMY_HASH_PROMISE, hashPassword } from "./passwords.ts";

/** How long a sign-up link (and so a pending sign-up) lives. */
export const SIGNUP_LINK_MS = 24 * 3600_000;
/** Sign-ups of one address that may wait at once: the first, and browser-bound ones beside it. */
const PENDING_SIGNUPS_MAX = 3;

export interface SignupRequest {
  password: string;
  data?: Record<string, unknown> | undefined;
  code_challenge?: string | null | undefined;
}

export class PendingSignups {
  constructor(
    private readonly identity: IdentityStore,
    private readonly links: LinkMail,
    private readonly accountPage: string,
  ) {}

  /**
   * Records a sign-up for an unconfirmed address:
   * - one that repeats a pending sign-up's password is that sign-up's own requester again: it replaces it;
   * - one made with PKCE is recorded beside the pending ones: its link confirms only in its requester's
   *   browser, so the address's owner opening it by mistake activates nothing;
   * - one made without PKCE while another person's sign-up waits is not recorded: its link would confirm its
   *   password for whoever opened the newest email. The address is told instead (a notice, no link).
   * Past the address's email allowance nothing is recorded (same answer): every recorded sign-up has had its
   * own email, so a resend never mails credentials nobody was told about.
   */
  async record(user: IdentityUser, b: SignupRequest, redirect: string): Promise<void> {
    const pending = await this.identity.pendingSignups(user.id, SIGNUP_LINK_MS);
    let same: OneTimeRow | undefined;
    for (const p of pending.slice(-PENDING_SIGNUPS_MAX))
      if (p.password_hash && (await checkPassword(b.password, p.password_hash))) same = p;
    const others = pending.filter((p) => p !== same);
    if (others.length > 0 && !b.code_challenge) {
      if (this.links.allowed("notice", user.email, 0))
        await this.mailed(() => this.links.notice(user.email, others[0]!.created, this.accountPage));
      return;
    }
    if (others.length >= PENDING_SIGNUPS_MAX || !this.links.allowed("signup", user.email, 0)) return;
    const token = await this.identity.createOneTime(user.id, "signup", {
      codeChallenge: b.code_challenge ?? null,
      method: b.code_challenge ? "s256" : null,
      passwordHash: await hashPassword(b.password),
      metadata: b.data ?? {},
    });
    if (same) await this.identity.voidOneTime(same.token_hash);
    await this.mailed(() => this.links.send("signup", user.email, token, redirect));
  }

  /**
   * A new link for each pending sign-up, each carrying that sign-up's own credentials and PKCE challenge
   * (never another's) and replacing its old link; at most one resend a minute, within the email allowance.
   */
  async resend(user: IdentityUser, redirect: string): Promise<void> {
    if (
      !this.links.allowed("resend", user.email, REPEAT_EVERY_MS) ||
      !this.links.allowed("signup", user.email, 0)
    )
      return;
    this.links.note("resend", user.email);
    for (const signup of await this.identity.pendingSignups(user.id, SIGNUP_LINK_MS)) {
      const token = await this.identity.createOneTime(user.id, "signup", {
        codeChallenge: signup.code_challenge,
        method: signup.code_challenge_method,
        passwordHash: signup.password_hash,
        metadata: signup.user_metadata,
      });
      await this.identity.voidOneTime(signup.token_hash);
      await this.links.send("signup", user.email, token, redirect);
    }
  }

  /** Whether a password is one of the address's pending sign-ups' (the newest few; each costs a hash). */
  async matches(user: IdentityUser, password: string): Promise<boolean> {
    const pending = (await this.identity.pendingSignups(user.id, SIGNUP_LINK_MS)).slice(-PENDING_SIGNUPS_MAX);
    if (pending.length === 0) {
      await checkPassword(password, await DUMMY_HASH_PROMISE);
      return false;
    }
    for (const p of pending)
      if (p.password_hash && (await checkPassword(password, p.password_hash))) return true;
    return false;
  }

  private async mailed(send: () => Promise<void>): Promise<void> {
    try {
      await send();
    } catch {
      throw idpError(503, "email_send_failed", "the email could not be sent; try again shortly with /resend");
    }
  }
}
