// The built-in identity provider's secrets, kept in the data dir (mode 0600) so tokens stay valid across
// restarts: an ES256 signing key pair (its public half is served as JWKS) and the publishable key that
// GoTrue-shaped clients send as `apikey`. Generated on first start. The key that derives each refresh token's
// successor is derived from the signing key, so it needs no storage of its own.
import { hkdfSync, randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { exportJWK, generateKeyPair, importJWK, type CryptoKey as JoseKey, type JWK } from "jose";
import type { Queryable } from "../db/db.ts";

export interface IdentitySecrets {
  kid: string;
  privateKey: JoseKey;
  publicJwk: JWK;
  publishableKey: string;
  /** HMAC key for refresh-token successors (IdentityStore.rotateRefresh). */
  refreshKey: Buffer;
}

interface StoredSecrets {
  kid: string;
  private_jwk: JWK;
  public_jwk: JWK;
  publishable_key: string;
}

const FILE = "identity-keys.json";

/**
 * `file`: another key pair for another issuer (the tool endpoint's authorization server keeps its own).
 * `shared`: cluster mode's database (migration 0021): the nodes sign with one key, the first node's.
 */
export async function loadIdentitySecrets(
  dataDir: string,
  file = FILE,
  shared: Queryable | null = null,
): Promise<IdentitySecrets> {
  const path = join(dataDir, file);
  let stored: StoredSecrets;
  try {
    stored = JSON.parse(await readFile(path, "utf8")) as StoredSecrets;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const kid = randomBytes(8).toString("hex");
    stored = {
      kid,
      private_jwk: { ...(await exportJWK(privateKey)), kid, alg: "ES256", use: "sig" },
      public_jwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" },
      publishable_key: `sb_publishable_${randomBytes(16).toString("base64url")}`,
    };
    await mkdir(dataDir, { recursive: true });
    // `wx`: two servers starting on one fresh data dir must not overwrite each other's key.
    await writeFile(path, JSON.stringify(stored, null, 2), { mode: 0o600, flag: "wx" }).catch(async (e) => {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      stored = JSON.parse(await readFile(path, "utf8")) as StoredSecrets;
    });
  }
  if (shared) stored = await sharedSecrets(shared, file, stored);
  return {
    kid: stored.kid,
    privateKey: (await importJWK(stored.private_jwk, "ES256")) as JoseKey,
    publicJwk: stored.public_jwk,
    publishableKey: stored.publishable_key,
    refreshKey: Buffer.from(
      hkdfSync("sha256", String(stored.private_jwk.d), stored.kid, "arena refresh-token successors", 32),
    ),
  };
}

/**
 * The cluster's copy of a key file: this node's own when it is the first to start, else the stored one. The
 * node's file is left as it is (it is the key again should the node run alone); a node whose file differs
 * simply signs with the cluster's key, and sessions it signed before joining end.
 */
async function sharedSecrets(db: Queryable, name: string, mine: StoredSecrets): Promise<StoredSecrets> {
  await db.query("INSERT INTO shared_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [
    name,
    JSON.stringify(mine),
  ]);
  const rows = await db.query<{ value: StoredSecrets | string }>(
    "SELECT value FROM shared_secrets WHERE name = $1",
    [name],
  );
  const v = rows[0]!.value;
  return typeof v === "string" ? (JSON.parse(v) as StoredSecrets) : v;
}
