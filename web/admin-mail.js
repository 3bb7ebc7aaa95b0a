// The console's announcements and email screens (SPEC 3.8, 4.6): compose an announcement, preview it (the
// draft, its audience and the rendered email, sending nothing), publish, archive, retry refused emails or
// delete, with each announcement's delivery counts; the email mode, the outbox's history (no addresses) and
// the incidents, each resolved with a reason. The sections are built here and added to the console, so the
// server's page shell needs no change for them.
import { el, table, time } from "./account-ui.js";
import { $, act, defineScreen, section } from "./admin-shared.js";
import { api } from "./session.js";

const STATES = ["pending", "sending", "accepted", "failed", "unknown", "skipped"];

section(
  "announcements",
  "Announcements",
  el(
    "p",
    { class: "muted small" },
    "Save draft to preview: it shows the email and who gets it, sending nothing; publish within an hour. Published announcements show on every page; archiving hides them there while their email goes on.",
  ),
  el(
    "form",
    { id: "announce-form", novalidate: true },
    el("label", { for: "announce-title" }, "Title"),
    el("input", { id: "announce-title", name: "title", maxlength: "120", required: true }),
    el("label", { for: "announce-body" }, "Text"),
    el("textarea", { id: "announce-body", name: "body", rows: "5", maxlength: "5000", required: true }),
    el(
      "fieldset",
      {},
      el("legend", {}, "Channels"),
      el(
        "label",
        { class: "check" },
        el("input", { type: "checkbox", name: "in_game", id: "announce-in-game", checked: true }),
        " In game",
      ),
      el(
        "label",
        { class: "check" },
        el("input", { type: "checkbox", name: "email", id: "announce-email" }),
        " Email",
      ),
    ),
    el("button", { class: "button", type: "submit", id: "announce-preview" }, "Save draft"),
  ),
  el("div", { id: "announce-draft", hidden: true }),
  el("h3", {}, "Drafts and announcements"),
  el("div", { id: "announcements" }),
);

section(
  "emails",
  "Emails",
  el("div", { id: "email-mode" }),
  el("h3", {}, "Incidents"),
  el("div", { id: "email-incidents" }),
  el("h3", {}, "Outbox"),
  el("div", { id: "email-totals" }),
  el("div", { id: "email-history" }),
);

function counts(d) {
  return (
    STATES.filter((s) => d[s] > 0)
      .map((s) => `${d[s]} ${s}`)
      .join(", ") || "—"
  );
}

function channels(a) {
  return [a.in_game ? "in game" : null, a.email ? "email" : null].filter(Boolean).join(" + ");
}

function stateOf(a) {
  if (a.state === "draft") return a.expired ? "draft (expired)" : "draft";
  return a.archived ? "archived" : a.state;
}

/** Tags an announcement email is made of (server/mail/templates.ts); anything else is dropped. */
const MAIL_TAGS = new Set(["P", "BR", "UL", "LI", "A", "HR", "STRONG", "EM"]);

/**
 * The rendered email's body rebuilt from an inert parse, element by element from a short list (links keep an
 * http(s) address only), so the preview shows the email as sent without ever inserting its markup.
 */
function emailBody(source) {
  const doc = new DOMParser().parseFromString(source, "text/html");
  const copy = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return document.createTextNode(node.textContent);
    if (node.nodeType !== Node.ELEMENT_NODE) return null;
    const kids = [...node.childNodes].map(copy).filter(Boolean);
    if (!MAIL_TAGS.has(node.tagName)) return kids.length ? el("span", {}, kids) : null;
    const href = node.getAttribute("href");
    return el(
      node.tagName.toLowerCase(),
      node.tagName === "A" && /^https?:/.test(href ?? "") ? { href } : {},
      kids,
    );
  };
  return [...doc.body.childNodes].map(copy).filter(Boolean);
}

function renderDraft(a) {
  const box = $("announce-draft");
  const parts = [
    el("h3", { id: "draft-heading", tabindex: "-1" }, `Draft: ${a.title}`),
    el("p", { class: "small" }, `Channels: ${channels(a)}. Publish before ${a.expires.slice(11, 16)} UTC.`),
  ];
  if (a.email) {
    const r = a.recipients;
    parts.push(
      el(
        "p",
        { id: "draft-recipients" },
        `Email to ${r.recipients} of ${r.accounts} accounts (${r.opted_out} opted out, ${r.no_address} without an address).`,
      ),
      el("p", { class: "small" }, `Subject: ${a.email_title}`),
      el(
        "div",
        {
          id: "draft-email",
          class: "email-preview",
          role: "document",
          "aria-label": "The email as recipients see it",
        },
        emailBody(a.email_html),
      ),
      el("details", {}, el("summary", {}, "Plain-text version"), el("pre", { class: "small" }, a.email_text)),
    );
  }
  const publish = el("button", { class: "button primary", type: "button", id: "draft-publish" }, "Publish");
  publish.addEventListener("click", () =>
    act(
      publish,
      "h-announcements",
      async () => {
        await api(`/api/admin/announcements/${encodeURIComponent(a.id)}/publish`, { method: "POST" });
        box.hidden = true;
        $("announce-form").reset();
        return `Published “${a.title}”.`;
      },
      ["announcements", "emails", "audit"],
    ),
  );
  const discard = el("button", { class: "button", type: "button" }, "Discard");
  discard.addEventListener("click", () =>
    act(
      discard,
      "h-announcements",
      async () => {
        await api(`/api/admin/announcements/${encodeURIComponent(a.id)}/archive`, { method: "POST" });
        box.hidden = true;
        return "Draft discarded.";
      },
      ["announcements", "audit"],
    ),
  );
  parts.push(el("p", {}, publish, " ", discard));
  box.replaceChildren(...parts);
  box.hidden = false;
  $("draft-heading").focus();
}

$("announce-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const f = event.currentTarget;
  await act(
    $("announce-preview"),
    "h-announcements",
    async () => {
      const a = await api("/api/admin/announcements/preview", {
        method: "POST",
        body: {
          title: f.title.value,
          body: f.body.value,
          in_game: f.in_game.checked,
          email: f.email.checked,
        },
      });
      renderDraft(a);
      return "Draft saved: check it, then publish.";
    },
    ["announcements"],
  );
});

function actionButton(label, a, path, method, message) {
  const b = el(
    "button",
    { class: "small-button", type: "button", "data-action": label.toLowerCase() },
    label,
  );
  b.addEventListener("click", () => {
    if (method === "DELETE" && !confirm(`Delete “${a.title}”? Its queued emails are cancelled.`)) return;
    void act(
      b,
      "h-announcements",
      async () => {
        await api(`/api/admin/announcements/${encodeURIComponent(a.id)}${path}`, { method });
        return message;
      },
      ["announcements", "emails", "audit"],
    );
  });
  return b;
}

function renderAnnouncements(list) {
  $("announcements").replaceChildren(
    table({
      id: "announcements-table",
      caption: "Drafts and announcements",
      empty: "No announcements yet.",
      columns: [
        { label: "Title" },
        { label: "State" },
        { label: "Channels", hideNarrow: true },
        { label: "Published" },
        { label: "Email delivery" },
        { label: "Actions" },
      ],
      rows: list.map((a) => [
        a.title,
        stateOf(a),
        channels(a),
        { value: time(a.published), sort: a.published ?? "" },
        a.email ? el("span", { class: "delivery", "data-id": a.id }, counts(a.delivery)) : "—",
        [
          a.state === "draft" && !a.expired
            ? actionButton("Publish", a, "/publish", "POST", `Published “${a.title}”.`)
            : null,
          a.state !== "discarded" && !a.archived
            ? actionButton(
                "Archive",
                a,
                "/archive",
                "POST",
                a.state === "draft" ? "Draft discarded." : "Hidden in game.",
              )
            : null,
          a.delivery.failed > 0
            ? actionButton("Retry", a, "/retry", "POST", "Refused emails queued again.")
            : null,
          actionButton("Delete", a, "", "DELETE", "Deleted."),
        ],
      ]),
    }),
  );
}

function renderEmails(e) {
  $("email-mode").replaceChildren(
    el(
      "p",
      { id: "email-mode-text" },
      e.mode === "smtp"
        ? `Mode: SMTP. One email every ${e.interval_ms / 1000} s at most; ${e.pending} waiting.`
        : `Mode: outbox. No SMTP server is configured, so ${e.pending} emails wait in the outbox until one is.`,
    ),
  );
  const open = e.incidents.filter((i) => !i.resolved);
  $("email-incidents").replaceChildren(
    table({
      id: "incidents-table",
      caption: "Email incidents",
      empty: "No incidents.",
      columns: [{ label: "Scope" }, { label: "Problem" }, { label: "Opened" }, { label: "Resolution" }],
      rows: e.incidents.map((i) => [
        i.scope === "*" ? "all mail (*)" : i.scope,
        i.problem,
        { value: time(i.opened), sort: i.opened },
        i.resolved ? `${i.resolution} (${i.resolved.slice(0, 16).replace("T", " ")})` : resolveForm(i),
      ]),
    }),
    open.length
      ? el("p", { class: "small" }, `${open.length} open: mail of those scopes waits until resolved.`)
      : "",
  );
  $("email-totals").replaceChildren(
    table({
      id: "email-totals-table",
      caption: "Emails by category and state",
      empty: "",
      columns: [{ label: "Category" }, ...STATES.map((s) => ({ label: s, numeric: true }))],
      rows: e.categories.map((c) => [c.label, ...STATES.map((s) => String(e.totals[c.id]?.[s] ?? 0))]),
    }),
  );
  $("email-history").replaceChildren(
    table({
      id: "email-history-table",
      caption: "Latest emails (no addresses)",
      empty: "Nothing sent or queued yet.",
      columns: [
        { label: "Queued" },
        { label: "Category" },
        { label: "Subject" },
        { label: "State" },
        { label: "Detail", hideNarrow: true },
      ],
      rows: e.history
        .slice(0, 50)
        .map((m) => [
          { value: time(m.created), sort: m.created },
          m.category,
          m.subject,
          m.state,
          m.detail ?? "",
        ]),
    }),
  );
}

function resolveForm(i) {
  const id = `resolve-${i.id}`;
  const input = el("input", { id, name: "reason", maxlength: "1000", required: true });
  const button = el("button", { class: "small-button", type: "submit" }, "Resolve");
  const form = el("form", { class: "inline" }, el("label", { for: id }, "Reason"), input, button);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void act(
      button,
      "h-emails",
      async () => {
        await api(`/api/admin/emails/incidents/${encodeURIComponent(i.scope)}/resolve`, {
          method: "POST",
          body: { reason: input.value },
        });
        return `Resolved; mail for ${i.scope} goes out again.`;
      },
      ["emails", "audit"],
    );
  });
  return form;
}

defineScreen("announcements", {
  load: async () => renderAnnouncements(await api("/api/admin/announcements")),
  clear: () => {
    $("announcements").replaceChildren();
    $("announce-draft").replaceChildren();
  },
});
defineScreen("emails", {
  load: async () => renderEmails(await api("/api/admin/emails")),
  clear: () => {
    for (const id of ["email-mode", "email-incidents", "email-totals", "email-history"])
      $(id).replaceChildren();
  },
});
