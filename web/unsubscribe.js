// The unsubscribe page: reads what the link's token is for (GET, changes nothing), then opts out of that one
// category when the reader presses the button (POST).
const token = new URLSearchParams(location.search).get("token") ?? "";
const text = document.getElementById("unsub-text");
const button = document.getElementById("unsub-button");
const url = `/api/email/unsubscribe?token=${encodeURIComponent(token)}`;

async function start() {
  try {
    const info = await (await fetch(url)).json();
    text.textContent = info.message;
    if (!info.valid) return;
    button.textContent = `Unsubscribe from “${info.label}”`;
    button.hidden = false;
  } catch {
    text.textContent = "The service could not be reached; try the link again in a moment.";
  }
}

button.addEventListener("click", async () => {
  button.disabled = true;
  try {
    const res = await fetch(url, { method: "POST" });
    const body = await res.json();
    text.textContent = res.ok ? body.message : body.error;
    button.hidden = res.ok;
  } catch {
    text.textContent = "The service could not be reached; try again in a moment.";
  } finally {
    button.disabled = false;
  }
});

void start();
