// Renders every email of the service: a subject, a plain-text body and an HTML body made from the same parts
// (escaped: names and titles come from people). The unsubscribe link is a placeholder the sender fills in
// when the mail goes out, so a stored mail holds no token and the link is always fresh (valid 90 days).
import type { EmailCategory } from "../kernel/unit-of-work.ts";

export const UNSUBSCRIBE_PLACEHOLDER = "{{unsubscribe_url}}";

/** What each category is called on the unsubscribe page and in the mail's footer. */
export const CATEGORY_LABELS: Record<EmailCategory, string> = {
  onboarding: "Getting started",
  achievements: "Achievements earned",
  bot_health: "Bot health warnings",
  event_reminders: "Event reminders",
  weekly_digest: "Weekly digest",
  admin_warnings: "Administrator warnings",
  announcements: "Announcements",
};

export interface MailParts {
  subject: string;
  greeting?: string;
  paragraphs: string[];
  /** Lines shown as a list (a digest's figures). */
  list?: string[];
  link?: { label: string; url: string };
}

export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function render(category: EmailCategory, p: MailParts, serviceName = "the ladder"): Rendered {
  const footer = `You get this email because "${CATEGORY_LABELS[category]}" is on in your account's email settings.`;
  const text = [
    ...(p.greeting ? [p.greeting, ""] : []),
    ...p.paragraphs.flatMap((x) => [x, ""]),
    ...(p.list?.length ? [...p.list.map((l) => `- ${l}`), ""] : []),
    ...(p.link ? [`${p.link.label}: ${p.link.url}`, ""] : []),
    "--",
    footer,
    `Unsubscribe from ${CATEGORY_LABELS[category]}: ${UNSUBSCRIBE_PLACEHOLDER}`,
    "",
  ].join("\n");
  const html = [
    "<!doctype html>",
    `<html><head><meta charset="utf-8"><title>${escapeHtml(p.subject)}</title></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5; max-width: 40em">',
    ...(p.greeting ? [`<p>${escapeHtml(p.greeting)}</p>`] : []),
    ...p.paragraphs.map((x) => `<p>${escapeHtml(x).replace(/\n/g, "<br>")}</p>`),
    ...(p.list?.length ? [`<ul>${p.list.map((l) => `<li>${escapeHtml(l)}</li>`).join("")}</ul>`] : []),
    ...(p.link ? [`<p><a href="${escapeHtml(p.link.url)}">${escapeHtml(p.link.label)}</a></p>`] : []),
    `<hr><p style="font-size: small; color: #555">${escapeHtml(footer)} ` +
      `<a href="${UNSUBSCRIBE_PLACEHOLDER}">Unsubscribe from ${escapeHtml(CATEGORY_LABELS[category])}</a> ` +
      `(${escapeHtml(serviceName)}).</p>`,
    "</body></html>",
  ].join("\n");
  return { subject: p.subject, text, html };
}
