// The owner's replay download on /bot/<name> (server/replay-share/archive.ts). The page is the same for everyone;
// when the signed-in account owns the bot, the download form is shown. The archive route takes the session's
// access token in a header, which a plain link cannot send, so the zip is fetched here and handed to the
// browser as a file (the server streams it; the browser holds it until it is saved).
import { accessToken, api, explain, signedIn, whoami } from "./session.js";

const section = document.getElementById("owner-replays");

async function reveal() {
  if (!section || !signedIn() || !whoami()) return;
  try {
    const account = await api("/api/account");
    if (!account.bots.some((b) => b.name === section.dataset.bot)) return;
  } catch {
    return; // signed out or offline: the page stays as anyone sees it
  }
  section.hidden = false;
  const form = document.getElementById("owner-replays-form");
  const status = document.getElementById("owner-replays-status");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    const version = form.elements.version.value;
    const opponent = form.elements.opponent.value.trim();
    if (version) q.set("version", version);
    if (opponent) q.set("opponent", opponent);
    status.textContent = "Preparing the archive…";
    try {
      const token = await accessToken();
      const res = await fetch(
        `/api/account/bots/${encodeURIComponent(section.dataset.bot)}/replays${q.size ? `?${q}` : ""}`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      if (!res.ok) {
        const body = await res.json().catch(() => ({}));
        status.textContent = body.error ?? `The download failed (${res.status}).`;
        return;
      }
      const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1];
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement("a");
      a.href = url;
      a.download = name ?? "replays.zip";
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      status.textContent = `Saved ${a.download}.`;
    } catch (err) {
      status.textContent = explain(err);
    }
  });
}

void reveal();
