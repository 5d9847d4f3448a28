import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * SBX-5: runner-to-runner requests are signed, never authenticated by the secret itself. A
 * forward carries an HMAC-SHA256, keyed with `GROVE_CLUSTER_SECRET`, over the method, the path
 * (with its query), the body's SHA-256, a timestamp, the sending and the target runner ids, a
 * nonce and whether the person sent the request to the first runner. The secret never travels.
 */
export const FORWARD_HEADERS = {
  by: "x-grove-forwarded-by",
  target: "x-grove-forward-target",
  timestamp: "x-grove-forward-timestamp",
  nonce: "x-grove-forward-nonce",
  person: "x-grove-forward-person",
  signature: "x-grove-forward-signature",
} as const;

/** The header older runners sent the secret in: refused wherever it appears. */
export const LEGACY_SECRET_HEADER = "x-grove-cluster-secret";

/** How far a forward's timestamp may be from the receiver's clock. */
export const MAX_SKEW_MS = 30_000;

/** What one signature covers. */
export interface ForwardClaim {
  method: string;
  /** Path and query as sent (`/api/v1/...`). */
  path: string;
  body: string;
  from: string;
  target: string;
  timestamp: number;
  nonce: string;
  person: boolean;
}

function canonical(c: ForwardClaim): string {
  const bodyHash = createHash("sha256").update(c.body, "utf8").digest("hex");
  return ["grove-forward-v1", c.method.toUpperCase(), c.path, bodyHash, String(c.timestamp), c.from, c.target, c.nonce, c.person ? "person" : "-"].join("\n");
}

function mac(secret: string, c: ForwardClaim): Buffer {
  return createHmac("sha256", secret).update(canonical(c)).digest();
}

/** The headers of one forward to `target` (a fresh nonce and the current time unless given). */
export function signForward(secret: string, c: Omit<ForwardClaim, "timestamp" | "nonce"> & { timestamp?: number; nonce?: string }): Record<string, string> {
  const claim: ForwardClaim = { ...c, timestamp: c.timestamp ?? Date.now(), nonce: c.nonce ?? randomBytes(16).toString("hex") };
  return {
    [FORWARD_HEADERS.by]: claim.from,
    [FORWARD_HEADERS.target]: claim.target,
    [FORWARD_HEADERS.timestamp]: String(claim.timestamp),
    [FORWARD_HEADERS.nonce]: claim.nonce,
    [FORWARD_HEADERS.person]: claim.person ? "1" : "0",
    [FORWARD_HEADERS.signature]: mac(secret, claim).toString("hex"),
  };
}

/** Whether `signature` (hex) is the HMAC of `claim` under `secret`; constant time. */
export function signatureMatches(secret: string, claim: ForwardClaim, signature: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(signature)) return false;
  return timingSafeEqual(mac(secret, claim), Buffer.from(signature, "hex"));
}

/**
 * Nonces seen within the skew window (both sides of it), so a captured forward cannot be
 * replayed while its timestamp is still accepted. Bounded: the oldest go first.
 */
export class NonceCache {
  private readonly seen = new Map<string, number>();

  constructor(private readonly max = 100_000) {}

  /** Records `nonce` (valid until `expiresAt`); false when it was already seen. */
  claim(nonce: string, expiresAt: number, now: number): boolean {
    for (const [n, exp] of this.seen) {
      if (exp > now && this.seen.size < this.max) break;
      this.seen.delete(n);
    }
    if (this.seen.has(nonce)) return false;
    this.seen.set(nonce, expiresAt);
    return true;
  }
}
