// The choice of driver: `pg` against PostgreSQL when a URL is given, embedded PGlite in the data dir otherwise.
// Both speak the same SQL (PGlite is PostgreSQL compiled to WebAssembly), so the store and the migrations are
// shared. A module of its own so the drivers, which implement db.ts's interface, are not imported by it.
import type { Db } from "./db.ts";

export interface DbPlace {
  databaseUrl?: string | undefined;
  dataDir: string;
}

export async function openDb(place: DbPlace): Promise<Db> {
  // Imported lazily so a PGlite-only run never loads pg, and a pg run never loads the WebAssembly build.
  if (place.databaseUrl) {
    const { openPg } = await import("./pg.ts");
    return openPg(place.databaseUrl);
  }
  const { openPglite } = await import("./pglite.ts");
  return openPglite(place.dataDir);
}
