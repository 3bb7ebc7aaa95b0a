// The browser's session with the identity provider (GoTrue-shaped; docs/accounts.md), shared by every page that
// calls account routes (/account, /admin, /play). It keeps {access_token, refresh_token, expires_at} in
// localStorage under "arena.session", refreshes before expiry, and runs the PKCE half of sign-up and recovery.
// No auth library: the flow is a handful of JSON calls, and a download would cost more than this file.

const KEY = "arena.session";
const PKCE_KEY = "arena.pkce";
/** Refresh when the access token has less than this left, so a request never leaves with a dying token. */
const MARGIN_S = 60;

/**
 * An error from the identity provider or the ladder API, with its `code`, the server's words and the whole
 * answer (`body`: some errors carry more, such as the revision now in force or each refused field).
 */
export class ApiError extends Error {
  constructor(status, code, message, body = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

// ---- identity provider address ----------------------------------------------------------------------------
let identityPromise = null;

/** `{identity_url, publishable_key}`: from the page when the server rendered it there, else GET /api (cached). */
export async function identity() {
  identityPromise ??= (async () => {
    const inline = document.getElementById("arena-identity");
    if (inline?.textContent) {
      const v = JSON.parse(inline.textContent);
      if (v?.identity_url) return v;
    }
    const res = await fetch("/api", { headers: { accept: "application/json" } });
    if (!res.ok) throw new ApiError(res.status, "unavailable", "The ladder could not be reached.");
    const accounts = (await res.json()).accounts;
    if (!accounts) throw new ApiError(404, "accounts_disabled", "This ladder has no accounts.");
    return { identity_url: accounts.identity_url, publishable_key: accounts.publishable_key };
  })().catch((err) => {
    // A failed look-up is retried next time rather than remembered.
    identityPromise = null;
    throw err;
  });
  return identityPromise;
}

async function errorOf(res) {
  let body = {};
  try {
    body = await res.json();
  } catch {
    // not JSON: the status says enough
  }
  const code = body.code ?? body.error_code ?? (res.status === 429 ? "rate_limited" : "http_" + res.status);
  const message = body.msg ?? body.error_description ?? body.message ?? body.error ?? res.statusText;
  return new ApiError(res.status, String(code), String(message), body);
}

/** One call to the identity provider: `path` under identity_url, JSON in and out, the apikey header always. */
export async function auth(path, { method = "POST", body, token } = {}) {
  const { identity_url, publishable_key } = await identity();
  const headers = { apikey: publishable_key, accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(identity_url + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw await errorOf(res);
  return res.status === 204 ? {} : res.json();
}

// ---- the stored session -----------------------------------------------------------------------------------
function read() {
  try {
    const s = JSON.parse(localStorage.getItem(KEY) ?? "null");
    if (s && typeof s.access_token === "string" && typeof s.refresh_token === "string") {
      if (Number.isFinite(s.expires_at)) return s;
    }
  } catch {
    // a damaged entry is the same as none
  }
  return null;
}

/** Stores a provider token answer (sign-in, PKCE exchange or refresh): both tokens are always replaced. */
export function saveSession(t) {
  const expires_at = Number.isFinite(t.expires_at)
    ? t.expires_at
    : Math.floor(Date.now() / 1000) + (t.expires_in ?? 3600);
  localStorage.setItem(
    KEY,
    JSON.stringify({ access_token: t.access_token, refresh_token: t.refresh_token, expires_at }),
  );
}

export function signedIn() {
  return read() !== null;
}

/** The signed-in email and account id, read from the access token (display only; the server verifies it). */
export function whoami() {
  const s = read();
  if (!s) return null;
  try {
    const part = s.access_token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const claims = JSON.parse(atob(part));
    return { email: claims.email ?? null, id: claims.sub ?? null };
  } catch {
    return null;
  }
}

let refreshing = null;

async function refresh(current) {
  const run = async () => {
    // Another tab may have refreshed while this one waited for the lock: its tokens are the ones to use.
    const now = read();
    if (!now) return null;
    if (now.refresh_token !== current.refresh_token) return now;
    try {
      const t = await auth("/token?grant_type=refresh_token", {
        body: { refresh_token: now.refresh_token },
      });
      saveSession(t);
      return read();
    } catch (err) {
      // A banned account keeps its session (an unban restores it) but gets no new tokens: say so.
      if (err instanceof ApiError && err.code === "account_banned") throw err;
      // The provider refused the refresh token (used, revoked, expired): the session is over.
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429) {
        localStorage.removeItem(KEY);
        return null;
      }
      throw err;
    }
  };
  // A refresh token works once, so two tabs (or two calls) refreshing at once would end the session:
  // one refresh per page at a time, and one per browser where Web Locks exist.
  refreshing ??= (navigator.locks ? navigator.locks.request(KEY, run) : run()).finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** A valid access token (refreshed first when it expires within a minute), or null when signed out. */
export async function accessToken() {
  const s = read();
  if (!s) return null;
  if (s.expires_at - Date.now() / 1000 > MARGIN_S) return s.access_token;
  try {
    return (await refresh(s))?.access_token ?? null;
  } catch (err) {
    // The provider could not be reached: a token that has not quite expired is still good for now.
    if (s.expires_at > Date.now() / 1000) return s.access_token;
    throw err;
  }
}

/** Ends the session here at once and, in the background, at the provider (POST /logout). */
export function signOut() {
  const s = read();
  localStorage.removeItem(KEY);
  if (!s) return Promise.resolve();
  return auth("/logout", { token: s.access_token }).catch(() => {
    // Already expired or unreachable: the tokens are gone from this browser either way.
  });
}

// ---- PKCE (sign-up confirmation and password recovery links) ----------------------------------------------
function base64url(bytes) {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * A new verifier, kept in localStorage (the emailed link may open in another tab of this browser), and the
 * challenge to send with sign-up or recovery. `purpose` tells the page what to do when the link comes back.
 */
export async function startPkce(purpose) {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  localStorage.setItem(PKCE_KEY, JSON.stringify({ verifier, purpose, at: Date.now() }));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return { code_challenge: base64url(new Uint8Array(digest)), code_challenge_method: "s256" };
}

/** Exchanges `?code=` from an emailed link for a session. Returns the purpose the link was asked for. */
export async function exchangeCode(code) {
  let pending = null;
  try {
    pending = JSON.parse(localStorage.getItem(PKCE_KEY) ?? "null");
  } catch {
    pending = null;
  }
  if (!pending?.verifier) throw new ApiError(400, "no_verifier", "");
  const t = await auth("/token?grant_type=pkce", {
    body: { auth_code: code, code_verifier: pending.verifier },
  });
  localStorage.removeItem(PKCE_KEY);
  saveSession(t);
  return pending.purpose === "recovery" ? "recovery" : "signup";
}

// ---- ladder API calls with the session --------------------------------------------------------------------
/** A JSON call to the ladder with `Authorization: Bearer <access token>`; throws ApiError on failure. */
export async function api(path, { method = "GET", body } = {}) {
  const token = await accessToken();
  if (!token) throw new ApiError(401, "signed_out", "You are signed out.");
  const headers = { accept: "application/json", authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw await errorOf(res);
  return res.json();
}

// Provider and API codes in plain words; anything else shows the server's own message, which is written for
// people already.
const PLAIN = {
  invalid_credentials: "That email and password do not match an account.",
  email_not_confirmed:
    "This email address is not confirmed yet. Open the link we emailed you, or send it again below.",
  weak_password:
    "That password is too short or too easy to guess: use at least 8 characters, best a phrase of unrelated words.",
  current_password_required: "This reset link is too old to set a new password. Ask for a new link.",
  session_not_found: "Your session ended. Sign in again.",
  otp_expired: "That email link has expired or was already used. Ask for a new one.",
  bad_code_verifier:
    "This link was asked for in another browser. Open it in the browser you used to sign up, or sign in.",
  flow_state_not_found: "That link was already used or has expired. Sign in, or ask for a new link.",
  no_verifier:
    "This link was asked for in another browser (or the site data was cleared). Open it in the browser you used, or sign in.",
  refresh_token_already_used: "Your session ended. Sign in again.",
  refresh_token_not_found: "Your session ended. Sign in again.",
  invalid_session: "Your session ended. Sign in again.",
  signed_out: "You are signed out. Sign in again.",
  email_send_failed: "The email could not be sent just now. Try again in a minute.",
  rate_limited: "Too many attempts in a short time. Wait a minute and try again.",
  account_banned: "This account is banned.",
  handle_required: "Choose a handle first.",
  invitation_required: "This ladder is by invitation: enter the code an admin gave you.",
  invalid_invitation:
    "That invitation code does not fit: it is unknown, for another ladder or for another account.",
  unavailable: "The ladder could not be reached. Check your connection and try again.",
};

/** What to tell a person about an error. */
export function explain(err) {
  if (err instanceof ApiError) {
    const plain = PLAIN[err.code];
    if (plain) return plain;
    const msg = err.message ? err.message.charAt(0).toUpperCase() + err.message.slice(1) : "";
    return msg ? (/[.!?]$/.test(msg) ? msg : `${msg}.`) : `Something went wrong (${err.code}).`;
  }
  if (err instanceof TypeError) return PLAIN.unavailable;
  return `Something went wrong: ${err?.message ?? err}`;
}
