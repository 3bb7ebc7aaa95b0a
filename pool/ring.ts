// The front-to-worker half of a worker's link (issue 39): a byte ring in a SharedArrayBuffer with a doorbell.
// A worker that has matches waits for its next batch blocked in Atomics.wait on the doorbell instead of asleep
// in its event loop, because the kernel wakes a futex waiter for about half of what a MessagePort costs (an
// eventfd write, epoll and the port's dispatch, plus moving the buffer): the round trip to a sleeping worker fell
// from 97-111 µs to 52-63 µs on the 2-vCPU machine of docs/performance-live-path.md. The other direction stays a
// MessagePort, because the front's thread is an event loop and nothing wakes one faster.
//
// One writer (the front), one reader (the worker). Layout: a 64-byte header of Int32 slots (below) and a Float64
// at byte 32, then `capacity` bytes of entries, each a u32 payload length and the payload, padded to 4 bytes; a
// length of WRAP says the next entry starts at 0. The writer never fills the ring to the last 4 bytes, so equal
// positions mean empty. Positions are published with Atomics.store after the bytes are written, so a reader that
// sees a position sees the bytes before it.
const Slot = {
  /** Byte offset (into the entries) where the writer writes next. */
  write: 0,
  /** Byte offset where the reader reads next. */
  read: 1,
  /** Bumped by the writer after each entry: the word the reader waits on. */
  bell: 2,
  /** Batches the reader took from the MessagePort (the writer's fallback when the ring is full), as it counts them. */
  portDone: 3,
} as const;
const HEADER = 64;
/** Byte offset of the Float64 where the reader adds the milliseconds it spent waiting (its metrics subtract it). */
const WAITED_AT = 32;
const WRAP = 0xffffffff;

/** 1 MiB holds several hundred batches of 64 matches' turns; a batch that does not fit goes by the port. */
export const RING_BYTES = 1 << 20;

export function createRing(capacity = RING_BYTES): SharedArrayBuffer {
  if (capacity % 4 !== 0) throw new Error("ring: capacity must be a multiple of 4");
  return new SharedArrayBuffer(HEADER + capacity);
}

const pad4 = (n: number) => (n + 3) & ~3;

class RingBase {
  protected readonly slots: Int32Array;
  protected readonly view: DataView;
  protected readonly u8: Uint8Array;
  protected readonly capacity: number;
  protected readonly waited: Float64Array;

  constructor(sab: SharedArrayBuffer) {
    this.slots = new Int32Array(sab, 0, 8);
    this.waited = new Float64Array(sab, WAITED_AT, 1);
    this.capacity = sab.byteLength - HEADER;
    this.view = new DataView(sab, HEADER);
    this.u8 = new Uint8Array(sab, HEADER);
  }

  /** Milliseconds the reader has spent blocked on the doorbell (read by the front for the worker's metrics). */
  get waitedMs(): number {
    return this.waited[0]!;
  }

  /** Batches the reader has taken from the port. */
  get portDone(): number {
    return Atomics.load(this.slots, Slot.portDone);
  }
}

export class RingWriter extends RingBase {
  /**
   * Writes one entry, the concatenation of `a` and `b`, and rings the doorbell. False when it does not fit:
   * nothing was written, and the caller sends the batch another way.
   */
  write(a: Uint8Array, b: Uint8Array | null): boolean {
    const len = a.byteLength + (b?.byteLength ?? 0);
    const size = 4 + pad4(len);
    const read = Atomics.load(this.slots, Slot.read);
    let at = Atomics.load(this.slots, Slot.write);
    const used = (at - read + this.capacity) % this.capacity;
    let free = this.capacity - used - 4;
    const tail = this.capacity - at;
    if (tail < size) {
      // The entry would cross the end: it starts at 0 instead, and the tail is lost until the reader passes it.
      free -= tail;
      if (size > free) return false;
      this.view.setUint32(at, WRAP, true);
      at = 0;
    } else if (size > free) return false;
    this.view.setUint32(at, len, true);
    this.u8.set(a, at + 4);
    if (b) this.u8.set(b, at + 4 + a.byteLength);
    Atomics.store(this.slots, Slot.write, (at + size) % this.capacity);
    Atomics.add(this.slots, Slot.bell, 1);
    Atomics.notify(this.slots, Slot.bell);
    return true;
  }

  /** Wakes the reader without an entry, so that it runs its event loop now (a message went by a port). */
  nudge(): void {
    Atomics.add(this.slots, Slot.bell, 1);
    Atomics.notify(this.slots, Slot.bell);
  }
}

export class RingReader extends RingBase {
  private scratch = new Uint8Array(4096);

  get empty(): boolean {
    return Atomics.load(this.slots, Slot.read) === Atomics.load(this.slots, Slot.write);
  }

  /**
   * The next entry's payload, copied out of the ring into a scratch buffer that the next call reuses (read it
   * before calling again), or null when the ring is empty.
   */
  next(): Uint8Array | null {
    let at = Atomics.load(this.slots, Slot.read);
    if (at === Atomics.load(this.slots, Slot.write)) return null;
    let len = this.view.getUint32(at, true);
    if (len === WRAP) {
      at = 0;
      len = this.view.getUint32(0, true);
    }
    if (this.scratch.byteLength < len)
      this.scratch = new Uint8Array(Math.max(len, 2 * this.scratch.byteLength));
    this.scratch.set(this.u8.subarray(at + 4, at + 4 + len));
    Atomics.store(this.slots, Slot.read, (at + 4 + pad4(len)) % this.capacity);
    return this.scratch.subarray(0, len);
  }

  /**
   * Blocks this thread until the writer rings or `ms` pass, unless an entry is already there. Only a worker
   * thread may call it (the front's thread must never block).
   */
  wait(ms: number): void {
    const bell = Atomics.load(this.slots, Slot.bell);
    if (!this.empty) return;
    const t0 = performance.now();
    Atomics.wait(this.slots, Slot.bell, bell, ms);
    this.waited[0] = this.waited[0]! + (performance.now() - t0);
  }

  /** Counts a batch taken from the port (the writer uses the ring again once it sees all of them taken). */
  tookFromPort(): void {
    Atomics.add(this.slots, Slot.portDone, 1);
  }
}
