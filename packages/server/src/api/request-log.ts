import type { FastifyInstance } from "fastify";

/** A URL with the value of every `token` query parameter replaced (SEC-6: no secret on disk). */
export function redactUrl(url: string): string {
  return url.replace(/([?&;]token=)[^&#;]*/gi, "$1[redacted]");
}

/**
 * One log line per request, written by Grove instead of Fastify's request logging (which
 * writes the raw URL, `?token=` included). Headers are never logged, so neither is
 * `Authorization` nor the page cookie.
 */
export function installRequestLog(app: FastifyInstance): void {
  app.addHook("onResponse", async (req, reply) => {
    // Request lines at debug: info keeps lifecycle events, not traffic.
    req.log.debug({ method: req.method, url: redactUrl(req.url), statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) }, "request");
  });
}
