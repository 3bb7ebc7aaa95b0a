// The accounts' credential rules as units: passwords are stored as scrypt with their parameters and a
// random salt, checked in constant time after NFKC normalisation, and anything malformed never matches;
// a presented secret is classified by its prefix (agent key, bot token, owner key) or its JWT shape.
import { describe, expect, it } from "vitest";
import { classify } from "../../server/accounts/accounts.ts";
import { checkPassword, DUMMY_HASH_PROMISE, hashPassword } from "../../server/accounts/passwords.ts";

describe("passwords", () => {
  it("stores scrypt with N=16384, r=8, p=1, a 16-byte salt and a 32-byte key", async () => {
    const stored = await hashPassword("correct horse");
    const [scheme, n, r, p, salt, hash, ...rest] = stored.split("$");
    expect([scheme, n, r, p]).toEqual(["scrypt", "16384", "8", "1"]);
    expect(Buffer.from(salt!, "base64url")).toHaveLength(16);
    expect(Buffer.from(hash!, "base64url")).toHaveLength(32);
    expect(rest).toEqual([]);
    // A fresh salt each time: the same password never hashes alike.
    expect(await hashPassword("correct horse")).not.toBe(stored);
  });

  it("checks the right password, refuses a wrong one, and compares after NFKC normalisation", async () => {
    const stored = await hashPassword("correct horse");
    expect(await checkPassword("correct horse", stored)).toBe(true);
    expect(await checkPassword("correct horsf", stored)).toBe(false);
    expect(await checkPassword("", stored)).toBe(false);
    // U+FB01 (the fi ligature) is "fi" under NFKC; a fullwidth A is "A".
    const ligature = await hashPassword("\ufb01sh\uff21");
    expect(await checkPassword("fishA", ligature)).toBe(true);
  });

  it("uses the parameters stored with the hash, so older hashes keep working", async () => {
    const stored = await hashPassword("pw-12345");
    const [, , , , salt] = stored.split("$");
    // The same password and salt with other parameters gives another key: the parameters are read, not assumed.
    const other = `scrypt$1024$8$1$${salt}$${stored.split("$")[5]}`;
    expect(await checkPassword("pw-12345", other)).toBe(false);
  });

  it("never matches a malformed stored value", async () => {
    const stored = await hashPassword("pw-12345");
    const [, n, r, p, salt, hash] = stored.split("$");
    for (const bad of [
      "",
      "plain",
      `bcrypt$${n}$${r}$${p}$${salt}$${hash}`,
      `scrypt$${n}$${r}$${p}$$${hash}`,
      `scrypt$${n}$${r}$${p}$${salt}$`,
      `scrypt$${n}$${r}$${p}$${salt}`,
      `scrypt$${n}$${r}$${p}$${salt}$${hash!.slice(0, 20)}`,
    ])
      expect(await checkPassword("pw-12345", bad), bad).toBe(false);
  });

  it("keeps a dummy hash for unknown emails that no password matches", async () => {
    const dummy = await DUMMY_HASH_PROMISE;
    expect(dummy.startsWith("scrypt$16384$8$1$")).toBe(true);
    expect(await checkPassword("", dummy)).toBe(false);
  });
});

describe("classify", () => {
  it("tells agent keys, bot tokens and owner keys by prefix, JWTs by shape, anything else unknown", () => {
    expect(classify("ak_abc")).toEqual({ kind: "agent_key", value: "ak_abc" });
    expect(classify("bt_abc")).toEqual({ kind: "bot_token", value: "bt_abc" });
    expect(classify("ok_abc")).toEqual({ kind: "owner_key", value: "ok_abc" });
    expect(classify("aaa.bbb.ccc")).toEqual({ kind: "jwt", value: "aaa.bbb.ccc" });
    expect(classify("a-b_c.d-e.")).toMatchObject({ kind: "jwt" });
    for (const v of [
      "",
      "aaa.bbb",
      "aaa.bbb.ccc.ddd",
      "x aaa.bbb.ccc",
      "aaa.bbb.ccc x",
      "aaa..ccc",
      "AK_abc",
      "tok",
    ])
      expect(classify(v).kind, v).toBe("unknown");
  });
});
