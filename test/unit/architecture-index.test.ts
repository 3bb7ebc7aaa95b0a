// docs/architecture.md opens with a map from every SPEC section to the code that implements it (issue 32).
// The map must stay whole and true while the server's files move: every section and subsection of the SPEC
// (docs/spec.md, the repository's copy of the contract) has a row, every row names at least one path, and
// every path it names exists. Section 2's resources are `###` headings without numbers; their rows are keyed
// `2 <Name>` (the heading up to its first parenthesis).
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const HEADING = "## Where each SPEC section lives";

/** The SPEC's section keys in document order: `1`, `1.1`, ..., `2 Error`, ..., `9`. */
function specSections(spec: string): string[] {
  const keys: string[] = [];
  let top = "";
  for (const line of spec.split("\n")) {
    const section = /^## (\d+)\. /.exec(line);
    if (section) {
      top = section[1]!;
      keys.push(top);
      continue;
    }
    const sub = /^### (\d+\.\d+) /.exec(line);
    if (sub) keys.push(sub[1]!);
    else if (top === "2" && line.startsWith("### ")) keys.push(`2 ${line.slice(4).split(" (")[0]!.trim()}`);
  }
  return keys;
}

/** The index's rows: key (first cell) and the paths named in backticks in the other cells. */
function indexRows(doc: string): { key: string; paths: string[] }[] {
  const start = doc.indexOf(`\n${HEADING}\n`);
  if (start < 0) return [];
  const body = doc.slice(start + HEADING.length + 2);
  const end = body.search(/^## /m);
  const rows: { key: string; paths: string[] }[] = [];
  for (const line of (end < 0 ? body : body.slice(0, end)).split("\n")) {
    if (!line.startsWith("|") || /^\|[\s|-]*$/.test(line)) continue;
    const cells = line.split("|").slice(1, -1);
    const key = cells[0]!.trim();
    if (key === "SPEC") continue; // the header row
    // A path is a backticked token that starts with a folder name and a slash (`server/app.ts`, `web/`);
    // other backticked tokens are names, routes (`/api`) or codes.
    const paths = [
      ...cells
        .slice(1)
        .join("|")
        .matchAll(/`([^`\s]+)`/g),
    ]
      .map((m) => m[1]!)
      .filter((t) => /^[a-z][\w.-]*\/[\w./-]*$/.test(t));
    rows.push({ key, paths });
  }
  return rows;
}

const spec = read("docs/spec.md");
const doc = read("docs/architecture.md");
const sections = specSections(spec);
const rows = indexRows(doc);

describe("docs/architecture.md's SPEC index", () => {
  it("reads every numbered section of the SPEC and section 2's resources", () => {
    // Guards the reader itself: if the SPEC's heading style changed, this would otherwise pass on nothing.
    expect(sections).toEqual(
      expect.arrayContaining(["1", "1.1", "1.2", "2 Error", "2 Match stats", "3.10", "9"]),
    );
    expect(sections.filter((k) => /^\d+$/.test(k))).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9"]);
    expect(sections.filter((k) => k.startsWith("2 ")).length).toBeGreaterThanOrEqual(20);
    expect(new Set(sections).size).toBe(sections.length);
  });

  it("opens the page: its first section after the introduction", () => {
    expect(doc.match(/^## .*$/m)?.[0]).toBe(HEADING);
  });

  it("has a row for every SPEC section, and none for a section the SPEC does not have", () => {
    const keys = rows.map((r) => r.key);
    expect(
      sections.filter((s) => !keys.includes(s)),
      "SPEC sections without a row",
    ).toEqual([]);
    expect(
      keys.filter((k) => !sections.includes(k)),
      "rows for no SPEC section",
    ).toEqual([]);
    expect(
      keys.filter((k, i) => keys.indexOf(k) !== i),
      "rows given twice",
    ).toEqual([]);
  });

  it("names at least one path in every row, and every path exists (folders end with a slash)", () => {
    const missing: string[] = [];
    for (const { key, paths } of rows) {
      if (paths.length === 0) missing.push(`${key}: names no file or folder`);
      for (const p of paths) {
        const full = join(ROOT, p);
        if (!existsSync(full)) missing.push(`${key}: ${p} does not exist`);
        else if (p.endsWith("/") !== statSync(full).isDirectory())
          missing.push(`${key}: ${p} is ${p.endsWith("/") ? "not a folder" : "a folder (end it with /)"}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
