import type { FastifyInstance, FastifyRequest } from "fastify";
import { API_OPERATIONS, type Operation } from "@grove/protocol/operations";
import { AppError } from "../domain/errors.js";
import { routerPath } from "./operation-routes.js";
import { cookieValue, TOKEN_COOKIE, tokenMatches } from "./auth.js";

/**
 * SBX-5: the actions only the person may take — answering an agent's permission request and
 * switching its mode or model (an auto-approving mode answers every later request). Everything
 * an agent's own processes could do over plain HTTP on loopback stops here. Declared as
 * `personOnly` on the operations of the table (`@grove/protocol/operations`).
 */
export const PERSON_ROUTES: ReadonlySet<string> = new Set(
  (Object.values(API_OPERATIONS) as Operation[]).filter((op) => op.personOnly).map((op) => `${op.method.toUpperCase()} ${routerPath(op.path)}`),
);

declare module "fastify" {
  interface FastifyRequest {
    /** SBX-5: a runner forwarded this request and signed that the person sent it to that runner. */
    grovePersonForwarded?: boolean;
    /** SBX-5: the person sent this request (checked here, or signed by the runner that forwarded it). */
    grovePerson?: boolean;
  }
}

/**
 * The person's channels: the CLI's bearer token (`GROVE_AUTH_TOKEN`, else the home's person
 * token the CLI reads from its 0600 file), or the page's HttpOnly cookie on a request that
 * names its origin (a browser's own fetch; the trust guard already refused a foreign one).
 * Never `?token=`: a URL ends up in logs and histories.
 */
export function isPerson(req: FastifyRequest, token: string): boolean {
  const header = req.headers.authorization;
  if (header?.startsWith("Bearer ") && tokenMatches(token, header.slice(7))) return true;
  return req.headers.origin !== undefined && tokenMatches(token, cookieValue(req.headers.cookie, TOKEN_COOKIE));
}

/** SBX-5: a person-only route without a person's credential → `403 person_required`, before forwarding or the handler. */
export function installPersonGuard(api: FastifyInstance, token: string): void {
  // preValidation: after the root's input guard (a NUL in an id is a 400 first), before forwarding.
  api.addHook("preValidation", async (req) => {
    req.grovePerson = req.groveForwarded ? req.grovePersonForwarded === true : isPerson(req, token);
    const url = req.routeOptions.url;
    if (!url?.startsWith("/api/v1/") || !PERSON_ROUTES.has(`${req.method} ${url.slice("/api/v1".length)}`)) return;
    if (req.grovePerson) return;
    throw new AppError(
      "person_required",
      "only the person answers permission requests and changes an agent's mode, model or budget: use the page or the `grove` CLI (it sends the person token from GROVE_HOME)",
    );
  });
}

/**
 * SBX-5 without `GROVE_AUTH_TOKEN`: the page's document loads (anything outside `/api/` and
 * `/assets/`) set the person token as the HttpOnly, SameSite=Strict `grove_token` cookie, so the
 * page can answer permissions while its script never sees the token.
 */
export function installPersonCookie(app: FastifyInstance, token: string): void {
  app.addHook("onRequest", async (req, reply) => {
    if (req.method !== "GET" || req.url.startsWith("/api/") || req.url.startsWith("/assets/")) return;
    if (tokenMatches(token, cookieValue(req.headers.cookie, TOKEN_COOKIE))) return;
    void reply.header("set-cookie", `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`);
  });
}
