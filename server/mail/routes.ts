// Mail operations: the public unsubscribe pair (SPEC 4.1: GET is read-only and always 200; POST opts out
// without sign-in, 400 for an invalid or expired token; RFC 8058 one-click POSTs a form body) and the admin
// email routes of SPEC 4.6 (modes, history without addresses, incidents, previews that send nothing).
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import * as R from "../api/responses.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import { operationFor } from "../kernel/operation.ts";
import * as messages from "./messages.ts";
import { CATEGORY_LABELS, type Rendered, render, UNSUBSCRIBE_PLACEHOLDER } from "./templates.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type MailRouteServices = Pick<Services, "mail"> & Pick<Kernel, "config" | "settings">;
const defineOperation = operationFor<MailRouteServices>();

const UNSUBSCRIBE_PATH = "/api/email/unsubscribe";

/**
 * One-click unsubscribe (RFC 8058) posts `List-Unsubscribe=One-Click` as a form: the unsubscribe route reads
 * form bodies; every other route still answers such a body 415, as before.
 */
export function acceptUnsubscribeForms(http: FastifyInstance): void {
  http.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (req, body, done) => {
    if (req.url.split("?")[0] !== UNSUBSCRIBE_PATH)
      return done(
        Object.assign(new Error("Unsupported Media Type: application/x-www-form-urlencoded"), {
          statusCode: 415,
        }),
      );
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
}

const TokenQuery = z.object({ token: z.string().max(1000).optional() });
const UnsubscribeBody = z.object({
  token: z.string().max(1000).optional(),
  "List-Unsubscribe": z.string().max(100).optional(),
});
const PreviewQuery = z.object({
  kind: z.enum(["welcome", "achievement", "admin"], { error: "kind must be welcome, achievement or admin" }),
});
const ScopeParams = z.object({ scope: z.string().min(1).max(253) });
const ResolveBody = z.object({
  reason: z
    .string({ error: "reason is required" })
    .trim()
    .min(1, "reason must be 1-1000 characters")
    .max(1000, "reason must be 1-1000 characters"),
});

/** A stored mail's body for the operator: the unsubscribe placeholder stays a placeholder (no token). */
const sample = (r: Rendered, link: string) => ({
  subject: r.subject,
  text: r.text.replaceAll(UNSUBSCRIBE_PLACEHOLDER, link),
  html: r.html.replaceAll(UNSUBSCRIBE_PLACEHOLDER, link),
});

export const MAIL_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: UNSUBSCRIBE_PATH,
    operationId: "unsubscribeInspect",
    summary: "What an unsubscribe token would do (read-only)",
    auth: "none",
    query: TokenQuery,
    doc: { tag: "data", ok: R.UnsubscribeCheck },
    handle: async ({ query, reply }, ctx) => {
      reply.header("cache-control", "private, no-store");
      return ctx.mail.inspect(query.token ?? "");
    },
  }),
  defineOperation({
    method: "POST",
    path: UNSUBSCRIBE_PATH,
    operationId: "unsubscribe",
    summary: "Opt out of one email category with a token from an email (no sign-in)",
    auth: "none",
    query: TokenQuery,
    body: UnsubscribeBody,
    errors: { 400: "invalid or expired token (`bad_request`)" },
    doc: { tag: "data", ok: R.Unsubscribed },
    handle: async ({ query, body, reply }, ctx) => {
      reply.header("cache-control", "private, no-store");
      return ctx.mail.unsubscribe(body.token ?? query.token ?? "");
    },
  }),
  defineOperation({
    method: "GET",
    path: "/api/admin/emails",
    operationId: "adminEmails",
    summary: "Mail modes, the outbox's history (no addresses) and incidents",
    auth: "admin",
    handle: async (_input, ctx) => {
      const { mail } = ctx;
      const history = await mail.store.history(100);
      return {
        mode: mail.mode,
        modes: {
          smtp: "mail is submitted to the configured SMTP server",
          outbox: "no SMTP server is configured: mail is kept in the outbox until one is",
        },
        smtp_configured: mail.mode === "smtp",
        interval_ms: ctx.settings.limits().emailIntervalMs,
        submitted_since_start: mail.sender.submitted,
        pending: await mail.store.pendingCount(),
        categories: [
          ...Object.entries(CATEGORY_LABELS).map(([id, label]) => ({ id, label })),
          { id: "identity", label: "Account links (sign-up, password reset)" },
        ],
        totals: await mail.store.totals(),
        history: history.map((m) => ({
          id: m.id,
          category: m.category,
          subject: m.subject,
          state: m.state,
          detail: m.detail,
          attempts: m.attempts,
          announcement_id: m.announcement_id,
          created: m.created,
          updated: m.updated,
          sent_at: m.sent_at,
          // An identity mail's body is its single-use link: never shown, not even while it waits.
          text: m.category === "identity" ? "(an account link: not shown)" : m.text,
        })),
        incidents: await mail.store.incidents(50),
      };
    },
  }),
  defineOperation({
    method: "GET",
    path: "/api/admin/emails/preview",
    operationId: "adminEmailPreview",
    summary: "A sample email of a kind (sends nothing)",
    auth: "admin",
    query: PreviewQuery,
    handle: async ({ query, caller }, ctx) => {
      const base = ctx.config.publicUrl;
      const handle = caller.account.handle;
      const link = `${base}/api/email/unsubscribe?token=(the recipient's own link)`;
      if (query.kind === "welcome")
        return { kind: query.kind, ...sample(render("onboarding", messages.welcome(base, handle)), link) };
      if (query.kind === "achievement")
        return {
          kind: query.kind,
          ...sample(
            render(
              "achievements",
              messages.achievement(base, handle, {
                event: "Spring Open",
                achievement: "First blood",
                bot: "my-bot",
              }),
            ),
            link,
          ),
        };
      return {
        kind: query.kind,
        ...sample(
          render(
            "admin_warnings",
            messages.adminWarning(base, "email sending paused", [
              "An email incident was opened for the scope *: transport: connection refused",
            ]),
          ),
          link,
        ),
      };
    },
  }),
  defineOperation({
    method: "POST",
    path: "/api/admin/emails/incidents/:scope/resolve",
    operationId: "adminResolveIncident",
    summary: "Resolve an open email incident with a reason (sending of its scope resumes)",
    auth: "admin",
    params: ScopeParams,
    body: ResolveBody,
    handle: async ({ params, body, caller }, ctx) => ({
      incident: await ctx.mail.resolveIncident(params.scope.toLowerCase(), body.reason, caller.account.id),
    }),
  }),
];
