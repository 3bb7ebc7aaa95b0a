// The admin console over the admin routes (docs/accounts.md, "Administration"): overview and bot moderation,
// accounts (role, ban, unban, delete), ladders (members, approvals, invitations), live settings (preview,
// save at a revision, presets), owner keys, usage and the audit log, one module per screen (web/admin-*.js).
// The server rendered an empty shell; nothing is shown until /api/admin/overview has accepted this session,
// and a refusal (401 admin_required, 403 not_admin) shows only the "not an admin" state.
import { bindSecretPanel } from "./account-ui.js";
import { failed, reload, say, show } from "./admin-shared.js";
import { signedIn } from "./session.js";
import "./admin-overview.js";
import "./admin-accounts.js";
import "./admin-ladders.js";
import "./admin-events.js";
import "./admin-settings.js";
import "./admin-presets.js";
import "./admin-usage.js";
import "./admin-audit.js";
import "./admin-mail.js";
import "./admin-charts.js";

async function start() {
  bindSecretPanel(say);
  if (!signedIn()) return show("signed-out");
  try {
    // The overview is the gate: only after it succeeds does anything else load or show.
    await reload("overview");
    show("console");
    await reload(
      "accounts",
      "usage",
      "audit",
      "ladders",
      "events",
      "settings",
      "announcements",
      "emails",
      "analytics",
      "health",
    );
  } catch (err) {
    await failed(err);
  }
}

void start();
