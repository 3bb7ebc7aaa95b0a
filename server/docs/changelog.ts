// Reads docs/changelog.md as data: its numbered releases (each with engine, rules and protocol versions and an
// action note for bot authors) apart from the Unreleased notes. Used by the changelog routes and by the test
// that keeps the file in that shape.

export interface Release {
  version: string;
  engine: string;
  rules: string;
  protocol: string;
  action: string;
  markdown: string;
}

export interface ParsedChangelog {
  unreleased: string | null;
  releases: Release[];
}

const RELEASE_HEADING = /^## (\d+\.\d+\.\d+)\s*$/;
const VERSIONS_LINE = /^Engine (\S+), rules (\S+), protocol (\S+)\.\s*$/m;
const ACTION_LINE = /^Action for bot authors: ([\s\S]*?)(?:\n\n|$)/m;

export function parseChangelog(markdown: string): ParsedChangelog {
  const sections: { heading: string; lines: string[] }[] = [];
  for (const line of markdown.split("\n")) {
    if (line.startsWith("## ")) sections.push({ heading: line, lines: [] });
    else sections.at(-1)?.lines.push(line);
  }
  let unreleased: string | null = null;
  const releases: Release[] = [];
  for (const s of sections) {
    const body = s.lines.join("\n").trim();
    if (/^## Unreleased\s*$/i.test(s.heading)) {
      unreleased = body;
      continue;
    }
    const version = RELEASE_HEADING.exec(s.heading)?.[1];
    if (!version) continue;
    const v = VERSIONS_LINE.exec(body);
    const a = ACTION_LINE.exec(body);
    releases.push({
      version,
      engine: v?.[1] ?? "",
      rules: v?.[2] ?? "",
      protocol: v?.[3] ?? "",
      action: a?.[1]?.replace(/\s+/g, " ").trim() ?? "",
      markdown: body,
    });
  }
  return { unreleased, releases };
}
