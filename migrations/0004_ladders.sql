-- Ladders as first-class runtime (issue 12): memberships and invitations of approval and invitation ladders
-- (SPEC 3.7), and the live settings (SPEC 4.6 settings, 8) with their named presets. Ladders themselves are
-- defined by the manifest file; rows here name a ladder by its manifest id.

CREATE TABLE ladder_members (
  ladder_id text NOT NULL,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  state text NOT NULL CHECK (state IN ('pending', 'active', 'revoked')),
  reason text,
  via_invitation text,
  created timestamptz NOT NULL DEFAULT now(),
  updated timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (ladder_id, account_id)
);
CREATE INDEX ladder_members_account_idx ON ladder_members (account_id);

-- Single-use invitations: bound to one account, or unbound (anyone holding the code). Only the code's hash
-- is kept; the code is shown once, to the staff member who made it.
CREATE TABLE ladder_invitations (
  id text PRIMARY KEY,
  ladder_id text NOT NULL,
  code_hash text NOT NULL UNIQUE,
  account_id text REFERENCES accounts (id) ON DELETE CASCADE,
  created timestamptz NOT NULL DEFAULT now(),
  created_by text NOT NULL,
  used_by text,
  used_at timestamptz
);
CREATE INDEX ladder_invitations_ladder_idx ON ladder_invitations (ladder_id, created);

-- One row: the live overrides on top of the start-up flags, with a revision for optimistic concurrency.
CREATE TABLE settings (
  id integer PRIMARY KEY CHECK (id = 1),
  revision integer NOT NULL,
  overrides jsonb NOT NULL,
  updated timestamptz NOT NULL DEFAULT now(),
  updated_by text NOT NULL
);

CREATE TABLE settings_presets (
  name text PRIMARY KEY,
  overrides jsonb NOT NULL,
  created timestamptz NOT NULL DEFAULT now(),
  created_by text NOT NULL
);
