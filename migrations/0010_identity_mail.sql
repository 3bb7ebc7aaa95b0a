-- Identity mail in the outbox (issue 31): the built-in identity provider's sign-up confirmations and password
-- resets are queued here like every other email, so they are paced and durable too (server/auth/links.ts).
-- Such a mail is addressed before any account exists: it carries its own address (`to_address`) and no
-- account id. Its body holds a single-use link, so the sender replaces the body once the row is settled
-- (server/mail/store.ts).

ALTER TABLE email_outbox DROP CONSTRAINT email_outbox_category_check;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_category_check CHECK (category IN ('onboarding',
  'achievements', 'bot_health', 'event_reminders', 'weekly_digest', 'admin_warnings', 'announcements', 'identity'));
ALTER TABLE email_outbox ALTER COLUMN account_id DROP NOT NULL;
ALTER TABLE email_outbox ADD COLUMN to_address text;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_identity_address_check
  CHECK ((category = 'identity') = (account_id IS NULL));

-- Identity mail goes ahead of the rest (a person is waiting on the sign-up page): the sender looks here first.
CREATE INDEX email_outbox_identity_pending_idx ON email_outbox (id) WHERE state = 'pending' AND category = 'identity';
