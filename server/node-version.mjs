// Which Node lines the service runs on, checked before anything else: by the server's entry point (server/main.ts:
// `npm run dev`, `npm start` and the compiled build/server/main.js) and by scripts/check-node.mjs (npm's
// preinstall, prestart and predev). Plain JavaScript with no imports, so an unsupported Node (20, end of life)
// can still run it and stop with one clear line instead of ten EBADENGINE warnings and a server that half works.

/** package.json's engines.node (test/unit/node-version.test.ts keeps the two equal). */
export const SUPPORTED_NODE = "^22.13.0 || >=24.0.0";

/** @param {string} v `22.13.0` or `v22.13.0` @returns {[number, number, number] | null} */
function parse(v) {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** @param {number[]} a @param {number[]} b @returns {number} */
function compare(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/**
 * Whether `version` is in `range`: alternatives joined by `||`, each `^x.y.z` (same major, at least x.y.z) or
 * `>=x.y.z`; the only forms engines.node uses here.
 * @param {string} version
 * @param {string} range
 * @returns {boolean}
 */
export function satisfies(version, range) {
  const v = parse(version);
  if (!v) return false;
  return range.split("||").some((part) => {
    const p = part.trim();
    const caret = p.startsWith("^");
    const min = parse(p.replace(/^(\^|>=)/, ""));
    if (!min || (!caret && !p.startsWith(">=")))
      throw new Error(`unsupported range part ${JSON.stringify(p)}`);
    return compare(v, min) >= 0 && (!caret || v[0] === min[0]);
  });
}

/**
 * The one line to stop with, or null when `version` is supported.
 * @param {string} version process.versions.node
 * @param {string} [range]
 * @returns {string | null}
 */
export function nodeVersionProblem(version, range = SUPPORTED_NODE) {
  if (satisfies(version, range)) return null;
  const lines = range
    .split("||")
    .map((p) => p.trim())
    .map((p) =>
      p.startsWith("^")
        ? `${p.slice(1)} or later on the ${parse(p.slice(1))?.[0]} line`
        : `${p.slice(2)} or later`,
    );
  return `arena-ladder needs Node ${lines.join(", or ")} (engines: ${range}); this is Node ${version.replace(/^v/, "")}. Install a supported Node and run it again.`;
}
