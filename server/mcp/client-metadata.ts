// What a dynamically registered client (RFC 7591) may declare about itself: its redirect URIs and its name.
// Anyone can register, so both are untrusted. A redirect URI is where the owner's browser goes after the
// consent page, with a code: https anywhere, http on loopback only (RFC 8252 7.3), or an app's private-use
// scheme (RFC 8252 7.1: `com.example.app:`, and the plain ones real MCP clients use: `cursor:`, `vscode:`).
// Refused: schemes that run code, read local data or hand the URL to an operating-system handler that is not
// the client app (issue 31: `ms-msdt:` and `search-ms:` start Windows tools from a link). The name is shown on
// the consent page as the client's own claim, never as verified; it may not hide text direction or controls.

/** Schemes a redirect URI may never use. */
const FORBIDDEN_SCHEMES = new Set([
  // Run script or show attacker-chosen content in the browser itself.
  "javascript",
  "vbscript",
  "data",
  "blob",
  "about",
  "filesystem",
  "view-source",
  "resource",
  "jar",
  "mhtml",
  "mk",
  "res",
  "its",
  "hcp",
  "help",
  // Local or network file access.
  "file",
  "smb",
  "cifs",
  "nfs",
  "afp",
  "ftp",
  "ftps",
  "sftp",
  "ssh",
  "telnet",
  "rlogin",
  "tn3270",
  "gopher",
  "ldap",
  "ldaps",
  "news",
  "nntp",
  "snews",
  "irc",
  "ircs",
  "ws",
  "wss",
  // Operating-system and browser handlers that are never an OAuth client.
  "search",
  "shell",
  "mailto",
  "tel",
  "sms",
  "callto",
  "facetime",
  "webcal",
  "feed",
  "jnlp",
  "intent",
  "android-app",
  "chrome",
  "chrome-extension",
  "moz-extension",
  "edge",
  "read",
  "steam",
  "iehistory",
  "ierss",
]);
/** Families of OS handlers: Microsoft's (`ms-msdt`, `ms-officecmd`, `search-ms` ...), Apple's app installers, web handlers. */
const FORBIDDEN_PREFIXES = ["ms-", "microsoft-", "search-", "itms", "web+", "windows-"];
const FORBIDDEN_SUFFIXES = ["-ms"];
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** Why a redirect URI is refused, or null: https anywhere, http on loopback only, or a private-use app scheme. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2000) return "redirect URIs are at most 2000 characters";
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `${JSON.stringify(uri)} is not an absolute URI`;
  }
  const scheme = u.protocol.slice(0, -1).toLowerCase();
  if (u.hash !== "" || uri.includes("#")) return "redirect URIs must not have a fragment";
  if (u.username || u.password) return "redirect URIs must not carry credentials";
  if (scheme === "https") return null;
  if (scheme === "http")
    return LOOPBACK_HOSTS.has(u.hostname.toLowerCase())
      ? null
      : "http redirect URIs are allowed on loopback addresses only (127.0.0.1, [::1], localhost); use https";
  if (!/^[a-z][a-z0-9+.-]*$/.test(scheme)) return `the scheme ${scheme}: is not a valid URI scheme`;
  if (
    FORBIDDEN_SCHEMES.has(scheme) ||
    FORBIDDEN_PREFIXES.some((p) => scheme.startsWith(p)) ||
    FORBIDDEN_SUFFIXES.some((s) => scheme.endsWith(s))
  )
    return `the scheme ${scheme}: is not allowed for redirect URIs (use https, http on loopback, or your app's own scheme such as com.example.app:)`;
  return null;
}

/** Control characters, and format characters (bidi overrides, zero-width) that make a name read as another. */
const HIDDEN = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

/** The name to store (trimmed, inner whitespace collapsed), or why it is refused. */
export function clientName(raw: string | undefined): { name: string } | { problem: string } {
  const name = (raw ?? "").replace(/\s+/g, " ").trim();
  if (HIDDEN.test(raw ?? ""))
    return { problem: "client_name must not contain control or invisible formatting characters" };
  return { name: name || "Unnamed client" };
}
