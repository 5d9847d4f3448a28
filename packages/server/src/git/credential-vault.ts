import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../domain/errors.js";

/** The key file under GROVE_HOME (RR-2): 32 random bytes, mode 0600, created on first use. */
export const CREDENTIAL_KEY_FILE = "credential.key";

/**
 * Loads the AES-256 key from `$GROVE_HOME/credential.key`, creating it (exclusive create, 0600)
 * when absent. A key file readable by others is tightened back to 0600 rather than trusted as is.
 */
export function loadCredentialKey(home: string): Buffer {
  const file = join(home, CREDENTIAL_KEY_FILE);
  try {
    writeFileSync(file, randomBytes(32), { mode: 0o600, flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const key = readFileSync(file);
  if (key.length !== 32) throw new Error(`${file} is not a 32-byte key`);
  return key;
}

/**
 * A public name of a credential key, so runners can tell whether they hold the same key
 * without ever showing it: HMAC-SHA256 keyed by the key over a fixed label, first 16 hex digits
 * (64 bits; not a secret, and no help in guessing a random 256-bit key).
 */
export function credentialKeyId(key: Buffer): string {
  return createHmac("sha256", key).update("grove credential key id").digest("hex").slice(0, 16);
}

/**
 * AES-256-GCM with a random 96-bit nonce; the repository id is the associated data, so a sealed
 * value copied onto another repository's row does not open. Format: `v1.<base64 nonce|tag|ct>`.
 */
export function sealSecret(key: Buffer, aad: string, plaintext: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", key, iv);
  c.setAAD(Buffer.from(aad, "utf8"));
  const ct = Buffer.concat([c.update(plaintext, "utf8"), c.final()]);
  return `v1.${Buffer.concat([iv, c.getAuthTag(), ct]).toString("base64")}`;
}

/** Opens a value of `sealSecret`; a wrong key, tampering or another row's value → `credential_unreadable`. */
export function openSecret(key: Buffer, aad: string, sealed: string): string {
  try {
    if (!sealed.startsWith("v1.")) throw new Error("unknown format");
    const raw = Buffer.from(sealed.slice(3), "base64");
    const d = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
    d.setAAD(Buffer.from(aad, "utf8"));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString("utf8");
  } catch {
    throw new AppError("credential_unreadable", "the stored credential cannot be decrypted with this server's key (credential.key changed?)", {});
  }
}
