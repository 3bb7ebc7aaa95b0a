// The consent page of the tool endpoint's OAuth server (/account/mcp/authorize?authorization_id=<id>): shows
// the signed-in owner which client asks for access, where it will be sent back to and what it may do, and
// sends the owner's approval or denial (POST /api/account/mcp/authorization); the answer is the address to
// return the browser to. Sign-in happens on the account page (the identity provider's session is shared).
import { el, setBusy, statusLine } from "./account-ui.js";
import { api, explain, signedIn } from "./session.js";

const say = statusLine(document.getElementById("consent-status"));
const id = new URLSearchParams(location.search).get("authorization_id") ?? "";
const box = document.getElementById("consent");
const out = document.getElementById("consent-signed-out");
const loading = document.getElementById("consent-loading");

// What each scope allows (docs/agents.md, server/mcp/scopes.ts); the page lists only the scopes asked for.
const SCOPES = {
  "bots:register": "See your account, bots and ladders, and register bots",
  "bots:manage": "Delete and retire your bots and enroll your account on ladders",
};

function go(url) {
  say("Returning you to the application…", "success");
  location.assign(url);
}

async function decide(action, button) {
  setBusy(button, true);
  try {
    const r = await api("/api/account/mcp/authorization", {
      method: "POST",
      body: { authorization_id: id, action },
    });
    go(r.redirect_url);
  } catch (err) {
    say(explain(err), "error");
    setBusy(button, false);
  }
}

async function show() {
  loading.hidden = true;
  if (!signedIn()) {
    out.hidden = false;
    return;
  }
  let view;
  try {
    view = await api(`/api/account/mcp/authorization?authorization_id=${encodeURIComponent(id)}`);
  } catch (err) {
    say(explain(err), "error");
    return;
  }
  // Decided already (a reload after approving): send the browser on.
  if (view.redirect_url) return go(view.redirect_url);
  box.replaceChildren(
    el("h2", { id: "consent-title" }, `${view.client.client_name} wants to use your account`),
    // Anyone can register a client under any name: say so, next to where the browser will really go.
    el(
      "p",
      { id: "consent-unverified", class: "small" },
      "The name “",
      el("strong", {}, view.client.client_name),
      "” is self-declared by the application; this ladder has not verified it. Approve only if you started this from an application you trust and the address below is the one you expect.",
    ),
    el(
      "p",
      {},
      "Signed in as ",
      el("strong", {}, view.account.handle ?? "(no handle yet)"),
      ". After you decide, your browser goes to ",
      el("code", { id: "consent-callback" }, view.callback),
      ".",
    ),
    el(
      "p",
      { class: "muted small" },
      "Client id ",
      el("code", {}, view.client.client_id),
      " · for ",
      el("code", {}, view.resource),
    ),
    el("h3", {}, "It will be able to"),
    el(
      "ul",
      { id: "consent-scopes" },
      ...view.scopes.map((s) => el("li", { "data-scope": s }, SCOPES[s] ?? s, " ", el("code", {}, s))),
    ),
    el(
      "p",
      { class: "muted small" },
      "It never sees your password or email. Revoke it at any time on your account page.",
    ),
  );
  const approve = el("button", { type: "button", class: "button primary", id: "consent-approve" }, "Approve");
  const deny = el("button", { type: "button", class: "button", id: "consent-deny" }, "Deny");
  approve.addEventListener("click", () => decide("approve", approve));
  deny.addEventListener("click", () => decide("deny", deny));
  box.append(el("p", { class: "actions" }, approve, " ", deny));
  box.hidden = false;
}

document.getElementById("consent-retry")?.addEventListener("click", () => location.reload());
if (!id) say("This page needs an authorization_id: start again from the application.", "error");
else void show();
