// Creates the run's two template clusters with the server's own code, as a first start does: <dir>/cluster
// (openDb on an empty dir: the cluster as created, opened and shut down cleanly) and <dir>/schema (the same,
// then brought up to date by migrate). Run under tsx by test/helpers/pglite-template-setup.ts.
import { cpSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "../../server/db/migrate.ts";
import { openDb } from "../../server/db/open.ts";

const dir = process.argv[2];
if (!dir) throw new Error("usage: pglite-template-make.ts <dir>");
await (await openDb({ dataDir: join(dir, "cluster") })).close();
cpSync(join(dir, "cluster"), join(dir, "schema"), { recursive: true });
const db = await openDb({ dataDir: join(dir, "schema") });
await migrate(db);
await db.close();
