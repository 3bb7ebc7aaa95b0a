// A lease as a NATS JetStream key-value entry (issue 36, part 2). The bucket has a TTL (its stream's max age):
// an entry not written again within it is removed by the NATS server itself. Taking the lease is `create` (it
// succeeds only where the key is absent, expired or deleted); keeping it is `update` with the revision this node
// wrote last (compare-and-set: it fails if anyone else wrote since). So one node at a time holds it, and when its
// holder dies the entry expires and the next node's `create` succeeds: a lost lease moves within the TTL plus one
// attempt interval (TTL 1 s, attempts every 150 ms: well within the 2 s).
//
// The holder counts the lease as held only until the time of its last successful write's request plus the TTL
// minus a margin: the server stamped that write no earlier than the request left, so the entry cannot have
// expired, nor anyone else have taken it, before then. A holder cut off from NATS thus stops pairing before
// another node may start. A failed compare-and-set means someone else holds it: held turns false at once.
import type { Logger } from "pino";
import type { Lease } from "../kernel/lease.ts";
import { decodeLease, encodeLease } from "./codec.ts";

/** The part of a NATS KV bucket a lease uses (@nats-io/kv's KV). */
export interface LeaseBucket {
  create(key: string, value: Uint8Array): Promise<number>;
  update(key: string, value: Uint8Array, revision: number): Promise<number>;
  get(key: string): Promise<{ value: Uint8Array; operation: string } | null>;
  delete(key: string, opts?: { previousSeq?: number }): Promise<void>;
}

export interface LeaseTiming {
  /** The bucket's TTL: an entry not rewritten within it expires (ms). */
  ttlMs: number;
  /** How often the holder rewrites its entry (ms). */
  renewMs: number;
  /** How often a node that does not hold it tries to take it (ms). */
  attemptMs: number;
  /** Held counts as lost this long before the entry could expire (ms). */
  marginMs: number;
}

export const LEASE_TIMING: LeaseTiming = { ttlMs: 1000, renewMs: 250, attemptMs: 150, marginMs: 250 };

/** JetStream's answer to a compare-and-set whose revision is not the key's last. */
const isConflict = (err: unknown): boolean => /wrong last sequence|key exists/i.test(String(err));

export class KvLease implements Lease {
  private revision = 0;
  private validUntil = 0;
  private nextAt = 0;
  private inFlight: Promise<void> | null = null;
  private closed = false;
  /** When this node took the lease (the entry says so while it holds it). */
  private since = "";
  /** The holder as this node last saw it (itself, another node's id, or null: nobody). */
  holder: string | null = null;

  constructor(
    private readonly bucket: LeaseBucket,
    readonly name: string,
    private readonly node: string,
    private readonly log: Logger,
    private readonly timing: LeaseTiming = LEASE_TIMING,
  ) {}

  held(): boolean {
    return this.revision > 0 && Date.now() < this.validUntil;
  }

  /** The key in the bucket (NATS keys take letters, digits, `-`, `_`, `=`, `.`, `/`). */
  private get key(): string {
    return this.name.replace(/[^A-Za-z0-9_=./-]/g, "_");
  }

  /** One step: renew when holding and due, else try to take it when due; called often, does the work when due. */
  step(): Promise<void> {
    const now = Date.now();
    if (this.inFlight) return this.inFlight;
    if (this.closed || now < this.nextAt) return Promise.resolve();
    this.inFlight = (this.revision > 0 ? this.renew(now) : this.take(now)).finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private value(): Uint8Array {
    return encodeLease({ node: this.node, name: this.name, since: this.since });
  }

  private async renew(sent: number): Promise<void> {
    try {
      this.revision = await this.bucket.update(this.key, this.value(), this.revision);
      this.validUntil = sent + this.timing.ttlMs - this.timing.marginMs;
      this.nextAt = sent + this.timing.renewMs;
    } catch (err) {
      if (isConflict(err)) {
        this.revision = 0;
        this.holder = null;
        this.log.warn({ lease: this.name }, "lease lost (another node holds it now)");
      } else {
        // NATS did not answer: keep trying; held() turns false on its own once validUntil passes.
        this.nextAt = Date.now() + this.timing.attemptMs;
        this.log.warn({ err, lease: this.name }, "lease renewal failed");
      }
    }
  }

  private async take(sent: number): Promise<void> {
    this.nextAt = sent + this.timing.attemptMs;
    this.since = new Date(sent).toISOString();
    try {
      this.revision = await this.bucket.create(this.key, this.value());
      this.validUntil = sent + this.timing.ttlMs - this.timing.marginMs;
      this.nextAt = sent + this.timing.renewMs;
      this.holder = this.node;
      this.log.info({ lease: this.name }, "lease taken");
    } catch (err) {
      if (!isConflict(err)) {
        this.log.warn({ err, lease: this.name }, "lease attempt failed");
        return;
      }
      const e = await this.bucket.get(this.key).catch(() => null);
      this.holder = e && e.operation === "PUT" ? (decodeLease(e.value)?.node ?? null) : null;
    }
  }

  /** Gives the lease up (drain, stop), so another node takes it at its next attempt instead of after the TTL. */
  async release(): Promise<void> {
    this.closed = true;
    await this.inFlight;
    const revision = this.revision;
    this.revision = 0;
    this.holder = null;
    if (revision === 0) return;
    await this.bucket.delete(this.key, { previousSeq: revision }).catch(() => {});
  }
}
