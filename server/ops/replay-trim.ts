// The replay trim (SPEC 8 replaysPerBot): each bot's replays beyond its newest REPLAYS_KEPT are marked trimmed in
// one unit of work (with an audit entry when staff asked for it), and the files go after the commit: a crash in
// between leaves files that the next trim or the start-up sweep removes. The ten-minute job and
// POST /api/admin/replays/trim are this one function.
import type { Services } from "../kernel/feature.ts";

/** The newest replays kept per bot (SPEC 8 replaysPerBot). */
export const REPLAYS_KEPT = 200;

/** Trims; `by` is the admin who asked (audited), or null for the scheduled trim. Answers how many were removed. */
export async function trimReplays(
  svc: Pick<Services, "matchStore" | "replays" | "store">,
  by: string | null,
): Promise<number> {
  const { store, matchStore, replays } = svc;
  const files = await store.work(async (u) => {
    const trimmed = await matchStore.trimReplays(REPLAYS_KEPT, u.q);
    if (by !== null) await u.audit("admin", "replays", { action: "trim", trimmed: trimmed.length, by });
    return trimmed;
  });
  await replays.remove(files);
  return files.length;
}
