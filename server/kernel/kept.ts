// Answers kept by what they were made from (issue 38). The read side hands back the same objects while nothing
// under them changed: the leaderboard's frozen answer, the read memo's rows (server/store/read-memo.ts), a health
// window's summary, the rating book's fit. What is derived from such inputs (a bot's answer, a rendered page, a
// serialised body) is then kept under their identities and made again only when one of them is another object
// (or another value, for strings and numbers), so a repeated view costs comparing a few inputs, not the work.
//
// Inputs are held by a number each (`identity`), never by reference: a kept answer does not keep the old
// leaderboard or match list it was made from alive after they were replaced.

const ids = new WeakMap<object, number>();
let nextId = 1;

/** A number that names this object for as long as it lives (never reused by another object in this process). */
export function identity(o: object): number {
  let id = ids.get(o);
  if (id === undefined) {
    id = nextId++;
    ids.set(o, id);
  }
  return id;
}

/** An answer's inputs: objects by identity, the rest by value. */
export type Inputs = readonly unknown[];

const canon = (v: unknown): unknown =>
  v !== null && (typeof v === "object" || typeof v === "function") ? `#${identity(v as object)}` : v;

function same(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

interface Entry<T> {
  inputs: unknown[];
  value: T;
  size: number;
}

/**
 * One kept answer per key, made again when its inputs differ from the ones it was made from. Bounded by the
 * sizes of the answers (as `size` counts them), least recently used dropped first.
 */
export class Kept<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private held = 0;

  constructor(
    private readonly maxSize: number,
    private readonly size: (v: T) => number = () => 1,
  ) {}

  /** The answer for `key` made from `inputs`: the kept one when made from the same inputs, else `make()`'s. */
  get(key: string, inputs: Inputs, make: () => T): T {
    const now = inputs.map(canon);
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      if (same(hit.inputs, now)) {
        this.entries.set(key, hit);
        return hit.value;
      }
      this.held -= hit.size;
    }
    const value = make();
    const entry = { inputs: now, value, size: this.size(value) };
    this.entries.set(key, entry);
    this.held += entry.size;
    for (const [k, e] of this.entries) {
      if (this.held <= this.maxSize || e === entry) break;
      this.entries.delete(k);
      this.held -= e.size;
    }
    return value;
  }

  /** What the kept answers count in all (tests and the memory figures). */
  get total(): number {
    return this.held;
  }
}
