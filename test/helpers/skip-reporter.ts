// Lists every skipped test with its reason at the end of a run, and under CI=true fails the run for a skip
// that CI should not need: any skip except a PostgreSQL variant's without DATABASE_URL (test/helpers/skips.ts).
import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import { NEEDS_DATABASE_URL } from "./skips.ts";

export interface Skip {
  file: string;
  name: string;
  reason: string | undefined;
}

/** The skips CI must not have: everything but the PostgreSQL variants' (which the next pass runs). */
export function failsCi(s: Skip): boolean {
  return !s.reason?.startsWith(NEEDS_DATABASE_URL);
}

export default class SkipReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skips: Skip[] = [];
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const r = t.result();
        if (r.state !== "skipped") continue;
        skips.push({ file: relative(process.cwd(), m.moduleId), name: t.fullName, reason: r.note });
      }
    }
    if (skips.length === 0) return;
    const ci = process.env.CI === "true";
    const failing = ci ? skips.filter(failsCi) : [];
    // Grouped by reason, then file; a group's test names are shown when there are a few.
    const groups = new Map<string, Map<string, Skip[]>>();
    for (const s of skips) {
      const reason = s.reason ?? "no reason given (use ctx.skip(reason))";
      const byFile = groups.get(reason) ?? new Map<string, Skip[]>();
      byFile.set(s.file, [...(byFile.get(s.file) ?? []), s]);
      groups.set(reason, byFile);
    }
    const lines: string[] = [];
    for (const [reason, byFile] of groups) {
      const fails = [...byFile.values()].some((g) => g.some((s) => failing.includes(s)));
      lines.push(`  ${fails ? "FAILS CI: " : ""}${reason}`);
      for (const [file, group] of byFile) {
        lines.push(`    ${file}: ${group.length} test(s)`);
        if (group.length <= 5) for (const s of group) lines.push(`      ${s.name}`);
      }
    }
    console.log(`\nSkipped ${skips.length} test(s), by reason:\n${lines.join("\n")}`);
    if (failing.length > 0) {
      console.log(`\nCI=true: ${failing.length} skipped test(s) fail the run (CI provides every tool).`);
      process.exitCode = 1;
    }
  }
}
