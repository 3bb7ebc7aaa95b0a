-- Announcements and email (issue 17): the durable outbox, sending incidents, the unsubscribe key and
-- announcements. An outbox row is written in the same transaction as the change that causes the mail; the one
-- sender moves it pending -> sending (committed before the SMTP submission) -> accepted | failed | unknown,
-- so a restart never resends what was accepted and never loses what was pending (server/mail/).

CREATE TABLE email_outbox (
  id bigserial PRIMARY KEY,
  category text NOT NULL CHECK (category IN ('onboarding', 'achievements', 'bot_health', 'event_reminders',
    'weekly_digest', 'admin_warnings', 'announcements')),
  -- The recipient; the address is looked up when the mail is sent (none is stored here).
  account_id text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text NOT NULL,
  announcement_id text,
  -- A mail that must go at most once (an onboarding mail, a week's digest): a second write is ignored.
  dedupe_key text UNIQUE,
  state text NOT NULL DEFAULT 'pending'
    CHECK (state IN ('pending', 'sending', 'accepted', 'failed', 'unknown', 'skipped')),
  attempts integer NOT NULL DEFAULT 0,
  -- The incident scope the recipient's domain falls under (lower case), set when the row is claimed.
  domain text,
  detail text,
  created timestamptz NOT NULL DEFAULT now(),
  updated timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX email_outbox_state_idx ON email_outbox (state, id);
CREATE INDEX email_outbox_announcement_idx ON email_outbox (announcement_id);

-- Sending incidents: while one is open for a scope (`*` for every mail, or a recipient domain), mail of that
-- scope waits; an operator resolves it with a reason.
CREATE TABLE email_incidents (
  id bigserial PRIMARY KEY,
  scope text NOT NULL,
  problem text NOT NULL,
  opened timestamptz NOT NULL DEFAULT now(),
  resolved timestamptz,
  resolved_by text,
  resolution text
);
CREATE UNIQUE INDEX email_incidents_open_idx ON email_incidents (scope) WHERE resolved IS NULL;

-- The key of the unsubscribe tokens (AES-256-GCM), shared by every server on this database.
CREATE TABLE email_keys (
  id integer PRIMARY KEY,
  secret text NOT NULL,
  created timestamptz NOT NULL DEFAULT now()
);

-- Announcements (SPEC 3.8). A draft expires an hour after its preview; `audience` is the email audience
-- snapshot (account ids) taken at preview.
CREATE TABLE announcements (
  id text PRIMARY KEY,
  title text NOT NULL,
  body text NOT NULL,
  in_game boolean NOT NULL,
  email boolean NOT NULL,
  state text NOT NULL DEFAULT 'draft' CHECK (state IN ('draft', 'published', 'discarded')),
  archived boolean NOT NULL DEFAULT false,
  audience jsonb NOT NULL DEFAULT '[]'::jsonb,
  email_title text,
  email_text text,
  email_html text,
  created timestamptz NOT NULL DEFAULT now(),
  created_by text NOT NULL,
  previewed timestamptz NOT NULL DEFAULT now(),
  published timestamptz,
  archived_at timestamptz,
  edited timestamptz
);
CREATE INDEX announcements_published_idx ON announcements (published DESC) WHERE state = 'published';
