import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../domain/errors.js";
import "./cluster-auth.js";

/** The cookie the web page authenticates with (SEC-6): set once from `/?token=…`, HttpOnly. */
export const TOKEN_COOKIE = "grove_token";

/** Constant-time comparison of a presented token with the expected one. */
export function tokenMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** One cookie's value from a `Cookie` header (no dependency: Grove reads exactly one cookie). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i < 0 || part.slice(0, i).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function presented(req: FastifyRequest): (string | undefined)[] {
  const header = req.headers.authorization;
  return [
    header?.startsWith("Bearer ") ? header.slice(7) : undefined,
    cookieValue(req.headers.cookie, TOKEN_COOKIE),
    // CLI and scripts may still open the socket with `?token=` (never logged, see request-log.ts).
    (req.query as Record<string, string | undefined> | undefined)?.token,
  ];
}

/** `401 unauthorized` unless the bearer header, the page cookie or `?token=` carries the token. */
export function requireToken(api: FastifyInstance, token: string): void {
  api.addHook("onRequest", async (req) => {
    // Another runner forwarding with the cluster secret (checked by cluster-auth.ts).
    if (req.groveForwarded) return;
    if (!presented(req).some((t) => tokenMatches(token, t))) throw new AppError("unauthorized", "a valid bearer token is required");
  });
}

/**
 * SEC-6: a GET of the page (anything outside `/api/`) with a valid `?token=` sets the HttpOnly,
 * SameSite=Strict cookie and redirects to the same address without the token, so the token
 * leaves the address bar and history and the page's own script never handles it.
 */
export function installTokenCookie(app: FastifyInstance, token: string): void {
  app.addHook("onRequest", async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.method !== "GET" || req.url.startsWith("/api/")) return;
    const url = new URL(req.url, "http://grove.invalid");
    const given = url.searchParams.get("token");
    if (given === null || !tokenMatches(token, given)) return;
    url.searchParams.delete("token");
    void reply
      .header("set-cookie", `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`)
      .header("cache-control", "no-store")
      .redirect(url.pathname + url.search + url.hash, 303);
    return reply;
  });
}
