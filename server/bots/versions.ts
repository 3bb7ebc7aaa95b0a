// Creating a bot version on first use, within the new-versions-per-day limit (SPEC 8; house bots exempt).
// Shared by the socket's `queue` and POST /api/me/versions so both enforce the same rule.
import type { Services } from "../kernel/feature.ts";
import type { Limits } from "../kernel/settings.ts";
import type { BotRow, VersionRow } from "../store/types.ts";
import type { BotStore } from "./bot-store.ts";

/** The stores useVersion reads and writes: the bot's versions, and the audit log for a refusal. */
export interface VersionStores {
  botStore: Pick<BotStore, "version" | "versionsCreatedSince" | "ensureVersion">;
  auditStore: Pick<Services["auditStore"], "audit">;
}

const DAY_MS = 24 * 3_600_000;

export class VersionLimitError extends Error {
  constructor(readonly limit: number) {
    super(`at most ${limit} new versions per bot per day; reuse an existing label or wait`);
  }
}

export async function useVersion(
  { botStore, auditStore }: VersionStores,
  limits: Pick<Limits, "newVersionsPerDay">,
  bot: BotRow,
  label: string,
  notes = "",
): Promise<{ version: VersionRow; created: boolean }> {
  // A bot queues again after every match, almost always with a version it already has: that is one lookup
  // (it was a list of every version, an insert that did nothing and a second lookup).
  const known = await botStore.version(bot.id, label);
  if (known) return { version: known, created: false };
  if (!bot.house) {
    const recent = await botStore.versionsCreatedSince(bot.id, new Date(Date.now() - DAY_MS).toISOString());
    if (recent >= limits.newVersionsPerDay) {
      await auditStore.audit("throttle", bot.name, {
        reason: "new_versions_per_day",
        limit: limits.newVersionsPerDay,
      });
      throw new VersionLimitError(limits.newVersionsPerDay);
    }
  }
  // Insert-or-read: two sockets racing on the first queue of a new label both succeed, one reports created.
  return botStore.ensureVersion(bot.id, label, notes);
}
