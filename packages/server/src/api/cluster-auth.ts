import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../domain/errors.js";
import { FORWARD_HEADERS, LEGACY_SECRET_HEADER, MAX_SKEW_MS, NonceCache, signatureMatches, type ForwardClaim } from "./forward-sign.js";
import { ruleOf } from "./forward-routes.js";

/** Set on a request forwarded by another runner: names that runner. */
export const FORWARDED_BY_HEADER = FORWARD_HEADERS.by;

declare module "fastify" {
  interface FastifyRequest {
    /** SBX-5: the request came from another runner, correctly signed (checked in two steps below). */
    groveForwarded?: boolean;
    /** The forward's signed claim, verified in `preValidation` once the body is read. */
    groveForwardClaim?: ForwardClaim & { signature: string };
  }
}

/** What the receiving runner checks a forward against. */
export interface ClusterAuthOptions {
  /** `GROVE_CLUSTER_SECRET`; without it, no forwarded request is accepted. */
  secret: string | undefined;
  /** This runner's id: a forward signed for another target is refused. */
  runnerId: string;
  /** Whether the sending runner is registered and online (the runners registry). */
  senderOnline(runnerId: string): Promise<boolean>;
}

function refuse(why: string): AppError {
  return new AppError("unauthorized", `runner-to-runner request refused: ${why}`);
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === "string" ? v : undefined;
}

/**
 * SBX-5: a request that says it was forwarded by another runner must prove it, else
 * `401 unauthorized` before anything runs. On arrival (`onRequest`, before the bearer-token
 * check it replaces): a forwarded route only (FORWARDED_ROUTES), signed for this runner, within
 * ±30 s, every signed header present. Once the body is read (the first `preValidation`, before
 * forwarding, the person guard and every handler): the HMAC over method, path, body hash,
 * timestamp, both runner ids, nonce and person flag; the nonce not seen before; the sender a
 * registered, online runner. A request carrying the cluster secret itself is always refused.
 * An accepted forward is handled here, never forwarded again.
 */
export function installClusterAuth(app: FastifyInstance, opts: ClusterAuthOptions): void {
  const nonces = new NonceCache();
  app.addHook("onRequest", async (req) => {
    const from = header(req, FORWARD_HEADERS.by);
    if (from === undefined && req.headers[LEGACY_SECRET_HEADER] === undefined && req.headers[FORWARD_HEADERS.signature] === undefined) return;
    if (req.headers[LEGACY_SECRET_HEADER] !== undefined) throw refuse("the cluster secret never travels; forwards are signed");
    if (!opts.secret) throw refuse("this runner has no GROVE_CLUSTER_SECRET");
    const target = header(req, FORWARD_HEADERS.target);
    const timestamp = Number(header(req, FORWARD_HEADERS.timestamp));
    const nonce = header(req, FORWARD_HEADERS.nonce);
    const signature = header(req, FORWARD_HEADERS.signature);
    const person = header(req, FORWARD_HEADERS.person);
    if (!from || !target || !nonce || !signature || !Number.isSafeInteger(timestamp) || (person !== "0" && person !== "1"))
      throw refuse("unsigned or incomplete");
    if (!/^[0-9a-f]{32}$/.test(nonce)) throw refuse("malformed nonce");
    if (target !== opts.runnerId) throw refuse(`signed for runner ${target.slice(0, 100)}, not this one`);
    if (Math.abs(Date.now() - timestamp) > MAX_SKEW_MS) throw refuse("timestamp outside the allowed clock skew (30 s)");
    if (!ruleOf(req.method, req.routeOptions.url)) throw refuse("not a forwarded route");
    req.groveForwardClaim = { method: req.method, path: req.url, body: "", from, target, timestamp, nonce, person: person === "1", signature };
    req.groveForwarded = true;
  });
  app.addHook("preValidation", async (req) => {
    const claim = req.groveForwardClaim;
    if (!claim || !opts.secret) return;
    const signed = { ...claim, body: req.groveRawBody ?? "" };
    if (!signatureMatches(opts.secret, signed, claim.signature)) throw refuse("bad signature");
    if (!nonces.claim(claim.nonce, claim.timestamp + 2 * MAX_SKEW_MS, Date.now())) throw refuse("replayed (nonce already seen)");
    if (!(await opts.senderOnline(claim.from))) throw refuse(`runner ${claim.from} is not a registered, online runner`);
    req.grovePersonForwarded = claim.person;
  });
}
