// Several real nodes for the cluster tests (issue 36): a private nats-server, a fresh PostgreSQL schema and child
// server processes with `--cluster`, started one after another (the first runs the migrations, the others find
// them done) and torn down together: kill -9 of what is left, NATS stopped, the schema dropped, the data dirs gone.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Child, startChild } from "./child-server.ts";
import { type Nats, startNats } from "./nats.ts";
import { freshDatabaseUrl } from "./server.ts";

export class TestCluster {
  nats: Nats | null = null;
  db: Awaited<ReturnType<typeof freshDatabaseUrl>> | null = null;
  /** The nodes in start order; the array is filled in place, so a test may keep a reference before start. */
  readonly nodes: Child[] = [];
  private readonly dirs: string[] = [];

  /** Starts NATS, the schema and `count` nodes, each with `--cluster <nats>` and the given arguments. */
  async start(prefix: string, count: number, args: readonly string[]): Promise<void> {
    const nats = await startNats();
    this.nats = nats;
    const db = await freshDatabaseUrl();
    this.db = db;
    for (let i = 0; i < count; i++) await this.add(prefix, args);
  }

  /** Starts one more node on the cluster's NATS and schema, with its own arguments (after `start`). */
  async add(prefix: string, args: readonly string[]): Promise<Child> {
    if (!this.nats || !this.db) throw new Error("the cluster is not started");
    const dir = mkdtempSync(join(tmpdir(), `${prefix}-${this.nodes.length}-`));
    this.dirs.push(dir);
    const node = await startChild(dir, this.db.url, { args: ["--cluster", this.nats.url, ...args] });
    this.nodes.push(node);
    return node;
  }

  async stop(): Promise<void> {
    for (const n of this.nodes) if (n.proc.exitCode === null) n.proc.kill("SIGKILL");
    await Promise.all(this.nodes.map((n) => n.exited));
    await this.nats?.stop();
    await this.db?.drop();
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}

/** Polls `read` until it gives a value other than null; fails after `timeoutMs` naming `what`. */
export async function until<T>(
  read: () => Promise<T | null>,
  what: string,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await read();
    if (v !== null) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
