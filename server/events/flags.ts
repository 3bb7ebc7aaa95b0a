// Event flags: one secret per achievement, supplied by the operator (a JSON file named by --event-flags or
// EVENT_FLAGS_FILE, or the JSON itself in EVENT_FLAGS), never in the repository. They live only here, in
// memory, and leave the server only in the body of a reveal (SPEC 4.5): never in public data, another
// response, a log line, an audit entry, an error or an email. An event in `testing` mode hands out clearly
// marked test values instead, so an organiser can rehearse without real flags.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { z } from "zod";

const FlagFile = z.record(z.string(), z.record(z.string(), z.string().min(1).max(500)));

export class FlagError extends Error {}

/** The prefix of every testing-mode value: nobody can mistake one for a real flag. */
export const TEST_FLAG_PREFIX = "TESTING-ONLY-NOT-A-REAL-FLAG";

export class Flags {
  private constructor(private readonly values: Map<string, string>) {}

  /** No flags configured: official events cannot reveal (503). */
  static none(): Flags {
    return new Flags(new Map());
  }

  /**
   * Reads the operator's flags. Errors name the source and the problem, never a value (a JSON parse error's
   * message can quote the text, so only the position is kept).
   */
  static load(source: { file?: string | undefined; json?: string | undefined }): Flags {
    const texts: [string, string][] = [];
    if (source.file) {
      try {
        texts.push([`event flags file ${source.file}`, readFileSync(source.file, "utf8")]);
      } catch (err) {
        throw new FlagError(
          `cannot read the event flags file ${source.file}: ${(err as NodeJS.ErrnoException).code ?? "error"}`,
        );
      }
    }
    if (source.json) texts.push(["EVENT_FLAGS", source.json]);
    const values = new Map<string, string>();
    for (const [where, text] of texts) {
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch (err) {
        const at = /position (\d+)/.exec((err as Error).message)?.[1];
        throw new FlagError(`${where} is not JSON${at ? ` (near position ${at})` : ""}`);
      }
      const parsed = FlagFile.safeParse(doc);
      if (!parsed.success)
        throw new FlagError(
          `${where} must be {"<event id>": {"<achievement id>": "<flag>"}}: ${parsed.error.issues
            .map((i) => i.path.slice(0, 2).join("."))
            .join(", ")}`,
        );
      for (const [event, byAchievement] of Object.entries(parsed.data))
        for (const [achievement, flag] of Object.entries(byAchievement))
          values.set(key(event, achievement), flag);
    }
    return new Flags(values);
  }

  /**
   * The entries that name no event or achievement of the manifest (`event` or `event/achievement`): a misspelt
   * id leaves the real achievement without its flag (reveals answer 503) and would otherwise go unnoticed.
   */
  unmatched(events: readonly { id: string; achievements: readonly { id: string }[] }[]): string[] {
    const out: string[] = [];
    const seenEvents = new Set<string>();
    for (const k of this.values.keys()) {
      const [event, achievement] = k.split("\n") as [string, string];
      const def = events.find((e) => e.id === event);
      if (!def) {
        if (!seenEvents.has(event)) out.push(event);
        seenEvents.add(event);
      } else if (!def.achievements.some((a) => a.id === achievement)) out.push(`${event}/${achievement}`);
    }
    return out;
  }

  has(eventId: string, achievementId: string): boolean {
    return this.values.has(key(eventId, achievementId));
  }

  /** The official flag, or null when the operator supplied none for it. */
  official(eventId: string, achievementId: string): string | null {
    return this.values.get(key(eventId, achievementId)) ?? null;
  }

  /** Every configured value (tests that prove none leaks). */
  get size(): number {
    return this.values.size;
  }
}

/** A testing-mode value: marked as such, stable per account so a repeated reveal answers the same. */
export function testFlag(eventId: string, achievementId: string, accountId: string): string {
  const tag = createHash("sha256")
    .update(`${eventId}\n${achievementId}\n${accountId}`)
    .digest("hex")
    .slice(0, 12);
  return `${TEST_FLAG_PREFIX}{${eventId}/${achievementId}/${tag}}`;
}

const key = (event: string, achievement: string) => `${event}\n${achievement}`;
