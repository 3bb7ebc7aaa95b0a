// Scrimmages on the site (server/scrimmages/): the owner's controls on a bot page (opt-in, asking for a
// scrimmage, cancelling or declining one, starting a batch test) and the live progress of a batch-test page.
// The bot page is public and rendered on the server; the controls appear only when the signed-in account owns
// the bot (the listing answers 404 for anyone else).
import { el, statusLine } from "./account-ui.js";
import { api, explain, signedIn } from "./session.js";

const REFRESH_MS = 3000;

async function botControls(section) {
  const name = section.dataset.bot;
  if (!name || !signedIn()) return;
  const path = `/api/account/bots/${encodeURIComponent(name)}/scrimmages`;
  let data;
  try {
    data = await api(path);
  } catch {
    return; // not the owner (404), or signed out: the page stays as the public sees it
  }
  const optIn = el("input", { type: "checkbox", id: "scrimmage-optin" });
  const opponent = el("input", {
    id: "scrimmage-opponent",
    required: true,
    maxlength: 64,
    autocomplete: "off",
  });
  const map = el("select", { id: "scrimmage-map" });
  const ask = el("button", { type: "submit", class: "button primary" }, "Ask for a scrimmage");
  const batchOpponents = el("input", { id: "batch-opponents", required: true, maxlength: 300 });
  const batchGames = el("input", {
    id: "batch-games",
    type: "number",
    min: 1,
    max: 100,
    value: 20,
    required: true,
  });
  const list = el("div", { id: "scrimmage-list" });
  const batches = el("ul", { id: "batch-list" });
  const status = el("p", { class: "status", role: "status", id: "scrimmage-status" });
  const tell = statusLine(status);

  const render = (d) => {
    data = d;
    optIn.checked = d.allow_scrimmages;
    if (map.options.length === 0)
      map.append(el("option", { value: "" }, "any map"), ...d.maps.map((m) => el("option", { value: m }, m)));
    const rows = d.scrimmages.map((s) => {
      const cancel =
        s.state === "pending"
          ? el(
              "button",
              { type: "button", class: "button small-button", "data-cancel": s.id },
              s.bot === name ? "Cancel" : "Decline",
            )
          : "";
      const links = s.match_id
        ? [
            el("a", { href: `/match/${s.match_id}` }, "match"),
            " · ",
            el("a", { href: `/view/${s.match_id}` }, "replay"),
          ]
        : "—";
      return el(
        "tr",
        { "data-scrimmage": s.id },
        el("td", {}, s.bot === name ? s.opponent : `${s.bot} (asked by its owner)`),
        el("td", {}, s.result ?? s.state),
        el("td", {}, s.map ?? "any"),
        el("td", {}, links),
        el("td", {}, cancel),
      );
    });
    list.replaceChildren(
      rows.length === 0
        ? el("p", { class: "empty" }, "No scrimmages yet.")
        : el(
            "table",
            { class: "data", id: "scrimmages-table" },
            el("caption", { class: "visually-hidden" }, "Scrimmages"),
            el(
              "thead",
              {},
              el(
                "tr",
                {},
                ...["Opponent", "State", "Map", "Links", ""].map((h) => el("th", { scope: "col" }, h)),
              ),
            ),
            el("tbody", {}, ...rows),
          ),
    );
    batches.replaceChildren(
      ...d.batches.map((b) =>
        el("li", {}, el("a", { href: `/batch/${b.id}` }, `${b.games} games`), ` · ${b.state}`),
      ),
    );
  };

  const act = async (button, fn, done) => {
    if (button) button.disabled = true;
    try {
      render(await fn());
      if (done) tell(done, "success");
    } catch (err) {
      tell(explain(err), "error");
    } finally {
      if (button) button.disabled = false;
    }
  };

  optIn.addEventListener("change", () =>
    act(
      null,
      () => api(`${path}/opt-in`, { method: "PUT", body: { allowed: optIn.checked } }),
      optIn.checked
        ? "Other owners may now ask this bot for scrimmages."
        : "Scrimmage requests from other owners are off.",
    ),
  );
  const form = el(
    "form",
    { id: "scrimmage-form", class: "inline" },
    el("label", {}, "Opponent", opponent),
    el("label", {}, "Map", map),
    ask,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void act(
      ask,
      async () => {
        const body = { opponent: opponent.value.trim(), ...(map.value ? { map: map.value } : {}) };
        const s = await api(path, { method: "POST", body });
        tell(
          s.state === "pending"
            ? `Asked for a scrimmage against ${s.opponent}: it starts when both bots have queued.`
            : `Scrimmage against ${s.opponent}: ${s.state}.`,
          "success",
        );
        return api(path);
      },
      null,
    );
  });
  list.addEventListener("click", (e) => {
    const id = e.target instanceof HTMLElement ? e.target.dataset.cancel : undefined;
    if (id)
      void act(
        e.target,
        () => api(`${path}?id=${encodeURIComponent(id)}`, { method: "DELETE" }),
        "Cancelled.",
      );
  });
  const start = el("button", { type: "submit", class: "button primary" }, "Start batch test");
  const batchForm = el(
    "form",
    { id: "batch-form", class: "inline" },
    el("label", {}, "Opponents (comma separated)", batchOpponents),
    el("label", {}, "Games", batchGames),
    start,
  );
  batchForm.addEventListener("submit", (e) => {
    e.preventDefault();
    void act(
      start,
      async () => {
        const opponents = batchOpponents.value
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
        const b = await api(`/api/account/bots/${encodeURIComponent(name)}/batches`, {
          method: "POST",
          body: { opponents, games: Number(batchGames.value) },
        });
        tell(`Batch test started: ${b.games} games.`, "success");
        return api(path);
      },
      null,
    );
  });

  // The account page's form styles, only for the owner: the public page stays as it was.
  if (section.dataset.css) document.head.append(el("link", { rel: "stylesheet", href: section.dataset.css }));
  section.replaceChildren(
    el("h2", { id: "h-scrimmages" }, "Scrimmages"),
    el(
      "p",
      { class: "muted small" },
      `Unrated games against a house bot, another of your bots, or a bot whose owner allows it. Limits: ${data.limits.at_once} at once, ${data.limits.per_hour} per hour.`,
    ),
    el("label", { class: "check" }, optIn, "Allow other owners to ask this bot for scrimmages"),
    form,
    status,
    list,
    el("h3", {}, "Batch tests"),
    batchForm,
    batches,
  );
  section.hidden = false;
  render(data);
  setInterval(async () => {
    if (!data.scrimmages.some((s) => s.state === "pending" || s.state === "playing")) return;
    try {
      render(await api(path));
    } catch {
      // a failed refresh waits for the next one
    }
  }, REFRESH_MS);
}

function batchProgress() {
  const section = document.getElementById("batch");
  if (section?.dataset.state === "running") setTimeout(() => location.reload(), REFRESH_MS);
}

const page = document.body.dataset.page;
if (page === "bot") {
  const section = document.getElementById("scrimmages");
  if (section) void botControls(section);
}
if (page === "batch") batchProgress();
