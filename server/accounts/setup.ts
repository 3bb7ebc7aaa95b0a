// Puts the accounts side of the server together from the config: the identity provider (built in, served
// at /auth/v1, or external), the token verifier, the mailer and rate limiting. Returns what the built-in
// provider's routes need, or null when it is not served.
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { errors } from "../errors.ts";
import { HitLog } from "../kernel/hit-log.ts";
import { IdentityOutbox } from "../mail/identity.ts";
import { type Mailer, makeMailer } from "../mail/transport.ts";
import type { Store } from "../store/types.ts";
import type { AccountStore } from "./account-store.ts";
import { Accounts, type AccountsDeps } from "./accounts.ts";
import { GuessThrottle } from "./guessing.ts";
import type { IdentityProviderDeps } from "./identity-provider.ts";
import type { IdentityStore } from "./identity-store.ts";
import { sharedRateStore } from "./rate-store.ts";
import { SessionGate } from "./sessions.ts";
import { loadIdentitySecrets } from "./signing-keys.ts";
import { TokenVerifier } from "./verifier.ts";

/** The accounts of a running server, its identity provider's address, and the provider's own deps (built-in). */
export interface AccountsSetUp {
  accounts: Accounts;
  /** The hits of the sign-in routes' budget and of the per-account throttles, shared in a cluster. */
  hits: { auth: HitLog; throttles: HitLog };
  /** The built-in provider's failed password attempts per email (null without it), shared in a cluster. */
  guesses: GuessThrottle | null;
  identity: { url: string; publishableKey: string; mailer: Mailer } | null;
  provider: IdentityProviderDeps | null;
}

/**
 * Builds the accounts for the configured mode (none, external provider, built-in provider). `live` reads the
 * bots' live state (the hub, lobby and matches are built after the accounts: read when a check runs).
 */
export async function setUpAccounts(
  base: {
    config: Config;
    store: Store;
    accountStore: AccountStore;
    auditStore: AccountsDeps["auditStore"];
    botStore: AccountsDeps["botStore"];
    identityStore: IdentityStore;
    log: Logger;
  },
  live: Pick<AccountsDeps, "disconnect" | "liveBot" | "inMatch">,
  http: FastifyInstance,
): Promise<AccountsSetUp> {
  const { config, store, accountStore, auditStore, botStore, identityStore, log } = base;
  // Per-route limits (sign-in, sign-up, recovery); keyed by client address. `global: false`: only routes
  // that ask are limited. The 429 body has the service's error shape.
  const hits = { auth: new HitLog(), throttles: new HitLog() };
  await http.register(rateLimit, {
    global: false,
    // The plugin's fixed window per address, plus the other nodes' hits in a cluster.
    store: sharedRateStore(hits.auth),
    // Thrown by the plugin, so it goes through the one error handler like every other ApiError.
    errorResponseBuilder: (_req, c) =>
      Object.assign(errors.rateLimited(`too many requests; try again in ${Math.ceil(c.ttl / 1000)} s`), {
        statusCode: 429,
      }),
  });
  // Behind an https public address, browsers are told to use https only (sessions and passwords travel on
  // every page of the site). Over plain http the header would mean nothing (browsers ignore it).
  if (config.publicUrl.startsWith("https://")) {
    http.addHook("onSend", async (_req, reply, payload) => {
      reply.header("strict-transport-security", "max-age=31536000; includeSubDomains");
      return payload;
    });
  }
  const deps: AccountsDeps = {
    config,
    store,
    accountStore,
    auditStore,
    botStore,
    throttles: hits.throttles,
    ...live,
  };
  if (config.accounts === "none")
    return { accounts: new Accounts(deps, null), identity: null, provider: null, hits, guesses: null };
  if (config.accounts === "external")
    return {
      accounts: new Accounts(deps, new TokenVerifier(config, null)),
      identity: null,
      provider: null,
      hits,
      guesses: null,
    };
  // In a cluster a session signed in through one node is valid on every node: one key pair for all (0021).
  const secrets = await loadIdentitySecrets(config.dataDir, undefined, config.cluster ? store.db : null);
  const development = /^https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/.test(config.publicUrl);
  const mailer = makeMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    timeoutMs: config.smtpTimeoutMs,
    onOutbox: (file, mail) => {
      log.info({ file }, "account email written to the outbox (no SMTP configured)");
      // On a development machine, the link goes to the console (not the structured log, which never
      // carries secrets), so a local sign-up needs no mail server.
      if (development && config.logLevel !== "silent") {
        const link = /https?:\/\/\S+\/auth\/v1\/verify\?\S+/.exec(mail.text)?.[0];
        if (link) process.stderr.write(`[development] email to ${mail.to}: ${link}\n`);
      }
    },
  });
  const sessions = new SessionGate(identityStore);
  const accounts = new Accounts(
    deps,
    new TokenVerifier(config, { secrets, identity: identityStore, sessions }),
  );
  const identity = { url: `${config.publicUrl}/auth/v1`, publishableKey: secrets.publishableKey, mailer };
  const banned = async (userId: string) => Boolean((await accountStore.account(userId))?.banned_at);
  // The provider's links go through the paced, durable outbox (server/mail/identity.ts), whose sender
  // delivers them with `mailer` like every other mail: nothing reaches the transport around the outbox.
  const outbox = new IdentityOutbox(store, mailer);
  const guesses = new GuessThrottle();
  return {
    accounts,
    hits,
    guesses,
    identity,
    provider: { config, identity: identityStore, secrets, mailer: outbox, sessions, banned, guesses },
  };
}
