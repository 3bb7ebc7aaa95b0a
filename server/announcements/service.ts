// Announcements (SPEC 3.8): preview saves a draft with the email audience snapshot and the rendered email;
// publish (within an hour of the preview, repeatable) freezes the email and queues one outbox row per
// recipient in the same unit of work; edit changes title and body (a published email stays as frozen);
// archive discards a draft or hides a published one in game (its email goes on); delete cancels queued mail;
// retry requeues only `failed` mail. Every change is audited in its own transaction.
import { randomBytes } from "node:crypto";
import type { Queryable } from "../db/db.ts";
import { errors } from "../errors.ts";
import type { EmailCategory, Unit } from "../kernel/unit-of-work.ts";
import type { MailService } from "../mail/mail.ts";
import { announcement } from "../mail/messages.ts";
import { type DeliveryCounts, emptyCounts } from "../mail/store.ts";
import { render } from "../mail/templates.ts";
import type { AnnouncementRow, AnnouncementStore, AudienceCounts } from "./store.ts";

export const DRAFT_TTL_MS = 3600_000;
const CATEGORY: EmailCategory = "announcements";

export interface Draft {
  title: string;
  body: string;
  in_game: boolean;
  email: boolean;
}

export function publicView(a: AnnouncementRow) {
  return { id: a.id, title: a.title, body: a.body, published: a.published };
}

/** What the announcements need: their own store, the unit of work, and the outbox they queue mail in. */
export interface AnnouncementDeps {
  store: AnnouncementStore;
  work<T>(fn: (u: Unit) => Promise<T>): Promise<T>;
  mail: MailService;
}

export class Announcements {
  private readonly store: AnnouncementStore;

  constructor(private readonly d: AnnouncementDeps) {
    this.store = d.store;
  }

  /** The latest published announcements, newest first (the in-game list). */
  published(limit: number) {
    return this.store.published(limit);
  }

  /** The admin view: the public fields, the frozen email, channels, times and delivery counts. */
  async adminView(a: AnnouncementRow, counts?: DeliveryCounts, recipients?: AudienceCounts) {
    const delivery = counts ?? (await this.d.mail.store.counts([a.id])).get(a.id) ?? emptyCounts();
    const expires = new Date(Date.parse(a.previewed) + DRAFT_TTL_MS).toISOString();
    return {
      ...publicView(a),
      state: a.state,
      archived: a.archived,
      in_game: a.in_game,
      email: a.email,
      created: a.created,
      previewed: a.previewed,
      expires: a.state === "draft" ? expires : null,
      expired: a.state === "draft" && Date.now() >= Date.parse(expires),
      archived_at: a.archived_at,
      edited: a.edited,
      email_title: a.email_title,
      email_text: a.email_text,
      email_html: a.email_html,
      audience: a.audience.length,
      ...(recipients ? { recipients } : {}),
      delivery,
    };
  }

  async list() {
    const rows = await this.store.latest(100);
    const counts = await this.d.mail.store.counts(rows.map((r) => r.id));
    return Promise.all(rows.map((r) => this.adminView(r, counts.get(r.id))));
  }

  private renderEmail(title: string, body: string) {
    const r = render(CATEGORY, announcement(title, body));
    return { email_title: r.subject, email_text: r.text, email_html: r.html };
  }

  async preview(d: Draft, by: string) {
    if (d.email && this.d.mail.mode !== "smtp") throw errors.emailNotConfigured();
    const audience = d.email ? await this.store.audience() : null;
    const id = `an_${randomBytes(9).toString("base64url")}`;
    const row = await this.d.work(async (u) => {
      const a = await this.store.insert(
        {
          id,
          ...d,
          audience: audience?.ids ?? [],
          ...(d.email
            ? this.renderEmail(d.title, d.body)
            : { email_title: null, email_text: null, email_html: null }),
          created_by: by,
        },
        u.q,
      );
      await u.audit("announcement", id, { action: "preview", by, in_game: d.in_game, email: d.email });
      return a;
    });
    return this.adminView(
      row,
      emptyCounts(),
      audience?.counts ?? { accounts: 0, recipients: 0, opted_out: 0, no_address: 0 },
    );
  }

  /** The announcement, locked for the unit of work's change. */
  private async require(id: string, q: Queryable) {
    const a = await this.store.get(id, q, true);
    if (!a) throw errors.noSuchAnnouncement(id);
    return a;
  }

  async publish(id: string, by: string) {
    const row = await this.d.work(async (u) => {
      const a = await this.require(id, u.q);
      if (a.state === "published") return a; // a repeat answers the same announcement
      if (a.state === "discarded") throw errors.announcementDiscarded();
      if (Date.now() - Date.parse(a.previewed) >= DRAFT_TTL_MS) throw errors.previewExpired();
      const published = await this.store.update(id, { state: "published", published: true }, u.q);
      let queued = 0;
      if (a.email && a.email_title && a.email_text && a.email_html)
        for (const accountId of a.audience)
          if (
            await u.outbox({
              category: CATEGORY,
              accountId,
              subject: a.email_title,
              text: a.email_text,
              html: a.email_html,
              announcementId: id,
              dedupeKey: `announcement:${id}:${accountId}`,
            })
          )
            queued++;
      await u.audit("announcement", id, { action: "publish", by, queued });
      return published;
    });
    return this.adminView(row);
  }

  async edit(id: string, title: string, body: string, by: string) {
    const row = await this.d.work(async (u) => {
      const a = await this.require(id, u.q);
      // A draft's email follows its text; a published one was frozen at publication.
      const email = a.state === "draft" && a.email ? this.renderEmail(title, body) : {};
      const updated = await this.store.update(id, { title, body, ...email, edited: true }, u.q);
      await u.audit("announcement", id, { action: "edit", by, from: { title: a.title }, to: { title } });
      return updated;
    });
    return this.adminView(row);
  }

  async archive(id: string, by: string) {
    const row = await this.d.work(async (u) => {
      const a = await this.require(id, u.q);
      if (a.state === "discarded" || a.archived) return a;
      const updated =
        a.state === "draft"
          ? await this.store.update(id, { state: "discarded" }, u.q)
          : await this.store.update(id, { archived: true, archived_at: true }, u.q);
      await u.audit("announcement", id, { action: a.state === "draft" ? "discard" : "archive", by });
      return updated;
    });
    return this.adminView(row);
  }

  async remove(id: string, by: string) {
    await this.d.work(async (u) => {
      await this.require(id, u.q);
      const cancelled = await this.d.mail.store.cancelAnnouncement(id, u.q);
      await this.store.remove(id, u.q);
      await u.audit("announcement", id, { action: "delete", by, cancelled });
    });
    return { deleted: id };
  }

  async retry(id: string, by: string) {
    const row = await this.d.work(async (u) => {
      const a = await this.require(id, u.q);
      const requeued = await this.d.mail.store.retryAnnouncement(id, u.q);
      await u.audit("announcement", id, { action: "retry", by, requeued });
      return a;
    });
    this.d.mail.sender.wake();
    return this.adminView(row);
  }
}
