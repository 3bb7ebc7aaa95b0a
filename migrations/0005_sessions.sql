-- Identity and sessions hardened (issue 21): sessions are first-class rows that sign-out, password changes,
-- refresh-token reuse and account deletion end; a sign-up's password waits on its own confirmation link until that link is
-- opened; refresh tokens remember their parent and when they were replaced (the short reuse interval);
-- agent keys may expire; deleted accounts leave a tombstone so an old token cannot recreate them.

-- One row per signed-in session. An access token names its session (`session_id`); account routes refuse a
-- token whose session has ended. `ip` is where the session began (a known address for the per-account
-- guessing delay); `recovery_at` marks a session opened by a recovery link (a fresh one may set a new
-- password without the current one).
CREATE TABLE identity_sessions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES identity_users (id) ON DELETE CASCADE,
  created timestamptz NOT NULL DEFAULT now(),
  ip text,
  recovery_at timestamptz,
  ended timestamptz,
  end_reason text
);
CREATE INDEX identity_sessions_user_idx ON identity_sessions (user_id);

-- Sessions of the refresh tokens issued before this migration: ended where every token was revoked.
INSERT INTO identity_sessions (id, user_id, created, ended, end_reason)
SELECT session_id, min(user_id), min(created),
       CASE WHEN bool_and(revoked) THEN now() END,
       CASE WHEN bool_and(revoked) THEN 'migrated' END
FROM identity_refresh_tokens GROUP BY session_id;

ALTER TABLE identity_refresh_tokens ADD COLUMN revoked_at timestamptz;
ALTER TABLE identity_refresh_tokens ADD COLUMN parent text;

-- A sign-up link carries the credentials of the sign-up that produced it; opening it makes them the
-- account's. Until then the user row holds no usable password (an empty hash).
ALTER TABLE identity_one_time ADD COLUMN password_hash text;
ALTER TABLE identity_one_time ADD COLUMN user_metadata jsonb;

-- Unconfirmed users made before this migration carry the first sign-up's password, whoever sent it: drop it
-- and their links, so the address's owner signs up afresh.
UPDATE identity_one_time SET used = true
WHERE NOT used AND user_id IN (SELECT id FROM identity_users WHERE email_confirmed_at IS NULL);
UPDATE identity_users SET password_hash = '' WHERE email_confirmed_at IS NULL;

ALTER TABLE agent_keys ADD COLUMN expires timestamptz;

-- A configured admin is one by the email list alone: a stored role on a listed account (which it could give
-- itself) would outlast its removal from the list.
UPDATE accounts SET role = 'player' WHERE email IS NOT NULL AND role = 'admin';

-- Accounts deleted by an admin (SPEC 3.6): a token issued before the deletion cannot create the account anew.
CREATE TABLE account_deletions (
  account_id text NOT NULL,
  deleted timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX account_deletions_account_idx ON account_deletions (account_id);
