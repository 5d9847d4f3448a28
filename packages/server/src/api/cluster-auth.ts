import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { AppError } from "../domain/errors.js";

/** Set on a request forwarded by another runner: names that runner. */
export const FORWARDED_BY_HEADER = "x-grove-forwarded-by";
/** Carries `GROVE_CLUSTER_SECRET` on runner-to-runner requests (a header, never the URL). */
export const CLUSTER_SECRET_HEADER = "x-grove-cluster-secret";

declare module "fastify" {
  interface FastifyRequest {
    /** Issue 15: the request came from another runner with the right cluster secret. */
    groveForwarded?: boolean;
  }
}

function matches(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Issue 15: a request that says it was forwarded by another runner (or carries a cluster
 * secret at all) must carry this runner's `GROVE_CLUSTER_SECRET`, else `401 unauthorized`,
 * before any route runs; a runner without a secret accepts no forwarded request. An
 * authenticated forwarded request is handled here, never forwarded again, and needs no bearer
 * token (the secret is the runners' credential; the first runner checked the person's).
 */
export function installClusterAuth(app: FastifyInstance, secret: string | undefined): void {
  app.addHook("onRequest", async (req) => {
    const by = req.headers[FORWARDED_BY_HEADER];
    const given = req.headers[CLUSTER_SECRET_HEADER];
    if (by === undefined && given === undefined) return;
    if (secret === undefined || typeof given !== "string" || typeof by !== "string" || !matches(secret, given)) {
      throw new AppError("unauthorized", "a runner-to-runner request needs the cluster secret (GROVE_CLUSTER_SECRET) of this runner");
    }
    req.groveForwarded = true;
  });
}
