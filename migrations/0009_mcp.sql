-- The tool endpoint's OAuth authorization server (SPEC 4.4, 5 rule 8): clients registered dynamically
-- (RFC 7591), authorization requests waiting for the owner's decision and their single-use codes, the grants
-- an owner approved (one live grant per account and client), and the grants' rotating refresh tokens. Every
-- secret (codes, refresh tokens) is stored as a sha256 hash.

CREATE TABLE mcp_clients (
  id text PRIMARY KEY,
  name text NOT NULL,
  redirect_uris jsonb NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created timestamptz NOT NULL DEFAULT now()
);

-- From /oauth/authorize until the owner approves or denies (then a code), the code is exchanged, or it expires.
CREATE TABLE mcp_authorizations (
  id text PRIMARY KEY,
  client_id text NOT NULL REFERENCES mcp_clients (id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  state text,
  resource text NOT NULL,
  scope text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'used')),
  account_id text REFERENCES accounts (id) ON DELETE CASCADE,
  grant_id text,
  code_hash text UNIQUE,
  redirect_url text,
  created timestamptz NOT NULL DEFAULT now(),
  expires timestamptz NOT NULL
);

-- An owner's approval of one client. `manage`: the client may also retire bots and enroll on ladders.
CREATE TABLE mcp_grants (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  client_id text NOT NULL REFERENCES mcp_clients (id) ON DELETE CASCADE,
  manage boolean NOT NULL,
  created timestamptz NOT NULL DEFAULT now(),
  last_used timestamptz,
  revoked timestamptz,
  revoke_reason text
);
CREATE UNIQUE INDEX mcp_grants_live_idx ON mcp_grants (account_id, client_id) WHERE revoked IS NULL;

-- Each exchange rotates the token: the old one is marked and a successor issued. Presenting a rotated token
-- again means a copy is in other hands, so the grant is revoked.
CREATE TABLE mcp_refresh_tokens (
  token_hash text PRIMARY KEY,
  grant_id text NOT NULL REFERENCES mcp_grants (id) ON DELETE CASCADE,
  created timestamptz NOT NULL DEFAULT now(),
  expires timestamptz NOT NULL,
  rotated timestamptz
);
CREATE INDEX mcp_refresh_tokens_grant_idx ON mcp_refresh_tokens (grant_id);

-- Agent keys made before this release were approved for registration only (SPEC 5 rule 8); keys made from now
-- on were created by the owner for an agent, which is the explicit approval to retire bots and enroll too.
ALTER TABLE agent_keys ADD COLUMN manage boolean NOT NULL DEFAULT false;
ALTER TABLE agent_keys ALTER COLUMN manage SET DEFAULT true;
