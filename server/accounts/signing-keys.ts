// The built-in identity provider's secrets, kept in the data dir (mode 0600) so tokens stay valid across
// restarts: an ES256 signing key pair (its public half is served as JWKS) and the publishable key that
// GoTrue-shaped clients send as `apikey`. Generated on first start. The key that derives each refresh token's
// successor is derived from the signing key, so it needs no storage of its own.
import { hkdfSync, randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { exportJWK, generateKeyPair, importJWK, type CryptoKey as JoseKey, type JWK } from "jose";

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

/** `file`: another key pair for another issuer (the tool endpoint's authorization server keeps its own). */
export async function loadIdentitySecrets(dataDir: string, file = FILE): Promise<IdentitySecrets> {
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
