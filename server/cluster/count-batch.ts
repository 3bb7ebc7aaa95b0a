// Counts per key a node sums for a moment before telling the other nodes (issue 36): one NATS message per hit would
// be thousands a second under a flood of connects or sign-ins, one message every `everyMs` carries each key's sums
// (shared-budgets.ts, shared-hits.ts). A row is the key and one count per slot; at most MAX_ROWS rows a message.

const MAX_ROWS = 2_000;

export interface CountBatch {
  /** One more in `slot` of `key`; the batch goes out `everyMs` after its first count. */
  add(key: string, slot?: number): void;
  stop(): void;
}

export function batchCounts(
  slots: number,
  everyMs: number,
  send: (rows: [string, ...number[]][]) => void,
): CountBatch {
  let pending = new Map<string, number[]>();
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    const rows = [...pending].map(([key, counts]): [string, ...number[]] => [key, ...counts]);
    pending = new Map();
    for (let i = 0; i < rows.length; i += MAX_ROWS) send(rows.slice(i, i + MAX_ROWS));
  };
  return {
    add(key, slot = 0) {
      const counts = pending.get(key) ?? new Array<number>(slots).fill(0);
      counts[slot]!++;
      pending.set(key, counts);
      timer ??= setTimeout(flush, everyMs);
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
