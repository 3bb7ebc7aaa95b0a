// The rating chart's sample (SPEC 2: a bot's rating history, at most 1,000 points): picked from the history's keys
// before any game is read (server/reads/reads.ts).

/** An even sample of at most `limit` points that keeps each version's first and last game (SPEC 2). */
export function sample<T extends { version: string }>(rows: readonly T[], limit: number): T[] {
  if (rows.length <= limit) return rows as T[];
  const keep = new Set<number>();
  const firstLast = new Map<string, [number, number]>();
  rows.forEach((r, i) => {
    const fl = firstLast.get(r.version);
    firstLast.set(r.version, fl ? [fl[0], i] : [i, i]);
  });
  for (const [a, b] of firstLast.values()) keep.add(a).add(b);
  const room = Math.max(0, limit - keep.size);
  for (let k = 0; k < room; k++) keep.add(Math.floor((k * rows.length) / room));
  return [...keep]
    .sort((a, b) => a - b)
    .slice(0, Math.max(limit, keep.size))
    .map((i) => rows[i]!);
}
