// The rating book's index of version pairs: (lo, hi) version indices to the pair's slot, in two typed arrays with
// open addressing and linear probing. A ladder of a million games holds close to a million pairs; a Map of Maps
// of objects weighed about 440 bytes a pair on the heap (327 MiB at a million games). This index takes about 24
// bytes a pair, and the pair's counts about 90 more in the book's flat arrays.

/** Versions are below 2^26 (67 million): lo * 2^26 + hi stays an exact double, and a unique key. */
const SPAN = 2 ** 26;
const EMPTY = -1;

export class PairTable {
  private keys = new Float64Array(1024).fill(EMPTY);
  private slots = new Int32Array(1024);
  private used = 0;

  /** The slot of pair (lo, hi), or -1. */
  get(lo: number, hi: number): number {
    const key = lo * SPAN + hi;
    const mask = this.keys.length - 1;
    for (let at = hash(lo, hi) & mask; ; at = (at + 1) & mask) {
      const k = this.keys[at]!;
      if (k === key) return this.slots[at]!;
      if (k === EMPTY) return -1;
    }
  }

  /** Files a new pair (not in the table yet) under `slot`. */
  add(lo: number, hi: number, slot: number): void {
    if (lo >= SPAN || hi >= SPAN) throw new Error("too many versions for the rating book's pair table");
    // At most half full: a miss (a pair that never met, which the matchmaker asks about most) stops early.
    if (2 * (this.used + 1) > this.keys.length) this.rehash(2 * this.keys.length);
    this.put(lo, hi, slot);
    this.used++;
  }

  private put(lo: number, hi: number, slot: number): void {
    const mask = this.keys.length - 1;
    let at = hash(lo, hi) & mask;
    while (this.keys[at] !== EMPTY) at = (at + 1) & mask;
    this.keys[at] = lo * SPAN + hi;
    this.slots[at] = slot;
  }

  private rehash(size: number): void {
    const { keys, slots } = this;
    this.keys = new Float64Array(size).fill(EMPTY);
    this.slots = new Int32Array(size);
    for (let at = 0; at < keys.length; at++) {
      const k = keys[at]!;
      if (k !== EMPTY) this.put(Math.floor(k / SPAN), k % SPAN, slots[at]!);
    }
  }
}

/** Mixes both indices (a multiplicative hash each, then the finaliser of MurmurHash3's 32-bit variant). */
function hash(lo: number, hi: number): number {
  let h = Math.imul(lo, 0x9e3779b1) ^ Math.imul(hi, 0x85ebca77);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Each version's pairs in the order they were added, as linked lists through typed arrays: a head and a tail per
 * version, and per slot its lo version and the next slot of its lo version's list and of its hi version's (a pair
 * is in both lists).
 */
export class PairLists {
  private head = new Int32Array(64).fill(EMPTY);
  private tail = new Int32Array(64).fill(EMPTY);
  private lo = new Int32Array(256);
  private nextLo = new Int32Array(256).fill(EMPTY);
  private nextHi = new Int32Array(256).fill(EMPTY);

  /** Appends the pair in `slot` (versions lo and hi) to both versions' lists; a slot is appended once. */
  append(slot: number, lo: number, hi: number): void {
    const versions = Math.max(lo, hi) + 1;
    if (versions > this.head.length) {
      this.head = grown(this.head, 2 * versions);
      this.tail = grown(this.tail, 2 * versions);
    }
    if (slot >= this.lo.length) {
      this.lo = grown(this.lo, 2 * (slot + 1), 0);
      this.nextLo = grown(this.nextLo, 2 * (slot + 1));
      this.nextHi = grown(this.nextHi, 2 * (slot + 1));
    }
    this.lo[slot] = lo;
    this.link(lo, slot);
    this.link(hi, slot);
  }

  /** The slots of version `v`'s pairs, oldest first. */
  *of(v: number): Iterable<number> {
    if (v >= this.head.length) return;
    for (let s = this.head[v]!; s !== EMPTY; s = this.next(s, v)) yield s;
  }

  private next(slot: number, v: number): number {
    return this.lo[slot] === v ? this.nextLo[slot]! : this.nextHi[slot]!;
  }

  private link(v: number, slot: number): void {
    const last = this.tail[v]!;
    if (last === EMPTY) this.head[v] = slot;
    else if (this.lo[last] === v) this.nextLo[last] = slot;
    else this.nextHi[last] = slot;
    this.tail[v] = slot;
  }
}

/** A copy of `a` of length `size`, the new places set to `fill`. */
function grown(a: Int32Array<ArrayBuffer>, size: number, fill = EMPTY): Int32Array<ArrayBuffer> {
  const b = new Int32Array(size);
  if (fill !== 0) b.fill(fill, a.length);
  b.set(a);
  return b;
}
