-- Accounts: the built-in identity provider's users and tokens, the service's accounts, agent keys, legacy
-- owner keys, and the account that owns each bot. Every secret is stored as a sha256 hash (passwords as
-- scrypt hashes); the plain value is shown once and never kept.

-- The built-in identity provider (GoTrue-shaped). An external provider keeps these tables empty.
CREATE TABLE identity_users (
  id text PRIMARY KEY,
  email text NOT NULL,
  email_lower text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  email_confirmed_at timestamptz,
  user_metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created timestamptz NOT NULL DEFAULT now(),
  updated timestamptz NOT NULL DEFAULT now(),
  last_sign_in timestamptz
);

-- Refresh tokens rotate: each use revokes the token and issues a child. Reusing a revoked token revokes its
-- whole session (someone else holds a copy).
CREATE TABLE identity_refresh_tokens (
  token_hash text PRIMARY KEY,
  user_id text NOT NULL REFERENCES identity_users (id) ON DELETE CASCADE,
  session_id text NOT NULL,
  revoked boolean NOT NULL DEFAULT false,
  created timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX identity_refresh_tokens_session_idx ON identity_refresh_tokens (session_id);

-- Single-use links (email confirmation, recovery) and PKCE authorization codes. `code_challenge` holds the
-- browser's PKCE challenge, so only the browser that asked can turn the link into a session.
CREATE TABLE identity_one_time (
  token_hash text PRIMARY KEY,
  user_id text NOT NULL REFERENCES identity_users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('signup', 'recovery', 'auth_code')),
  code_challenge text,
  code_challenge_method text,
  -- For an auth_code: what the link confirmed (signup or recovery).
  purpose text,
  used boolean NOT NULL DEFAULT false,
  created timestamptz NOT NULL DEFAULT now()
);

-- Accounts of the ladder, keyed by the identity provider's subject. Created on first authenticated use.
CREATE TABLE accounts (
  id text PRIMARY KEY,
  handle text,
  handle_lower text UNIQUE,
  role text NOT NULL DEFAULT 'player' CHECK (role IN ('player', 'admin')),
  banned_at timestamptz,
  -- Kept only while the configured admin email list names it (SPEC 5.4).
  email text,
  email_announcements boolean NOT NULL DEFAULT true,
  email_preferences jsonb NOT NULL DEFAULT '{}'::jsonb,
  max_bots integer,
  created timestamptz NOT NULL DEFAULT now(),
  last_seen timestamptz
);

CREATE TABLE agent_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  label text NOT NULL DEFAULT '',
  key_hash text NOT NULL UNIQUE,
  created timestamptz NOT NULL DEFAULT now(),
  last_used timestamptz
);
CREATE INDEX agent_keys_account_idx ON agent_keys (account_id);

-- Operator-issued legacy owner keys: registration on explicit anonymous local ladders only.
CREATE TABLE owner_keys (
  id text PRIMARY KEY,
  name text NOT NULL,
  name_lower text NOT NULL UNIQUE,
  key_hash text NOT NULL UNIQUE,
  max_bots integer,
  created timestamptz NOT NULL DEFAULT now()
);

-- The account that owns a bot; null for anonymous-development bots and house bots.
ALTER TABLE bots ADD COLUMN account_id text;
CREATE INDEX bots_account_idx ON bots (account_id);
