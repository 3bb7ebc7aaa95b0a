-- The competitive core: an audit log (registrations, throttling, admin actions) and the indexes the
-- quotas and rating history read.

CREATE TABLE audit (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  kind text NOT NULL,
  subject text NOT NULL,
  detail jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_kind_id_idx ON audit (kind, id);

-- Quotas count recent match starts per bot and per owner.
CREATE INDEX matches_started_idx ON matches (started);
-- New versions per day per bot.
CREATE INDEX bot_versions_created_idx ON bot_versions (bot_id, created);
