// Announcement operations: the public list every page polls (SPEC 4.1) and the admin lifecycle of SPEC 4.6
// (preview, edit, publish, archive, retry, delete), each change one audited unit of work in the service.
import { z } from "zod";
import { errors } from "../errors.ts";
import { operationFor } from "../kernel/operation.ts";
import { type Announcements, publicView } from "./service.ts";

const defineOperation = operationFor<Announcements>();

/** Control characters other than line breaks and tabs are not plain text. */
const CONTROL = { test: (s: string) => [...s].some((c) => isControl(c.codePointAt(0)!)) };
function isControl(cp: number): boolean {
  return (cp < 0x20 && cp !== 0x09 && cp !== 0x0a && cp !== 0x0d) || cp === 0x7f;
}
const LINE_BREAK = /[\r\n\u0085\u2028\u2029]/;

const Title = z
  .string({ error: "title is required" })
  .refine((s) => s.trim().length >= 1 && s.length <= 120, "title must be 1-120 characters")
  .refine((s) => !LINE_BREAK.test(s), "title must be one line")
  .refine((s) => !CONTROL.test(s), "title must be plain text (no control characters)")
  .transform((s) => s.trim());
const Body = z
  .string({ error: "body is required" })
  .refine((s) => s.trim().length >= 1 && s.length <= 5000, "body must be 1-5000 characters")
  .refine((s) => !CONTROL.test(s), "body must be plain text (no control characters)")
  .transform((s) => s.replace(/\r\n?/g, "\n").trim());

const PreviewBody = z
  .object({
    title: Title,
    body: Body,
    in_game: z.boolean({ error: "in_game must be a boolean" }),
    email: z.boolean({ error: "email must be a boolean" }),
  })
  .refine((d) => d.in_game || d.email, "choose at least one channel (in_game or email)");
const EditBody = z.object({ title: Title, body: Body });
const IdParams = z.object({ id: z.string().min(1).max(64) });

const PublicAnnouncement = z.object({
  id: z.string(),
  title: z.string(),
  body: z.string(),
  published: z.string().nullable(),
});

export const ANNOUNCEMENT_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/announcements",
    operationId: "announcements",
    summary: "The latest 100 published in-game announcements, newest first",
    auth: "none",
    doc: { tag: "data", ok: z.array(PublicAnnouncement) },
    handle: async ({ reply }, announcements) => {
      // Polled by every page every 15 s; a new announcement must show at the next poll.
      reply.header("cache-control", "no-cache");
      return (await announcements.published(100)).map(publicView);
    },
  }),
  defineOperation({
    method: "GET",
    path: "/api/admin/announcements",
    operationId: "adminAnnouncements",
    summary: "The latest 100 drafts and announcements with delivery counts",
    auth: "admin",
    handle: async (_input, announcements) => announcements.list(),
  }),
  defineOperation({
    method: "POST",
    path: "/api/admin/announcements/preview",
    operationId: "adminAnnouncementPreview",
    summary: "Save a draft with its email audience and rendered email; sends nothing",
    auth: "admin",
    body: PreviewBody,
    handle: async ({ body, caller }, announcements) => announcements.preview(body, caller.account.id),
  }),
  defineOperation({
    method: "PUT",
    path: "/api/admin/announcements/:id",
    operationId: "adminAnnouncementEdit",
    summary: "Change an announcement's title and body",
    auth: "admin",
    params: IdParams,
    invalidParams: (p) => errors.noSuchAnnouncement(String((p as { id?: unknown }).id ?? "")),
    body: EditBody,
    handle: async ({ params, body, caller }, announcements) =>
      announcements.edit(params.id, body.title, body.body, caller.account.id),
  }),
  defineOperation({
    method: "DELETE",
    path: "/api/admin/announcements/:id",
    operationId: "adminAnnouncementDelete",
    summary: "Remove an announcement; its queued emails are cancelled",
    auth: "admin",
    params: IdParams,
    invalidParams: (p) => errors.noSuchAnnouncement(String((p as { id?: unknown }).id ?? "")),
    handle: async ({ params, caller }, announcements) => announcements.remove(params.id, caller.account.id),
  }),
  ...(["publish", "archive", "retry"] as const).map((action) =>
    defineOperation({
      method: "POST",
      path: `/api/admin/announcements/:id/${action}`,
      operationId: `adminAnnouncement${action[0]!.toUpperCase()}${action.slice(1)}`,
      summary:
        action === "publish"
          ? "Publish a draft previewed within the hour (a repeat returns the same announcement)"
          : action === "archive"
            ? "Discard a draft, or hide a published announcement in game (its email goes on)"
            : "Requeue the emails that were refused (never accepted or unknown ones)",
      auth: "admin",
      params: IdParams,
      invalidParams: (p) => errors.noSuchAnnouncement(String((p as { id?: unknown }).id ?? "")),
      handle: async ({ params, caller }, announcements) =>
        announcements[action](params.id, caller.account.id),
    }),
  ),
];
