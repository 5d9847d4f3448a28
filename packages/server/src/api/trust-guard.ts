import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../domain/errors.js";

/** Who may talk to the server (SEC-5): extra names beyond the loopback ones and the listen address. */
export interface TrustOptions {
  /** `GROVE_HOST` as configured (the listen address). */
  listenHost: string;
  /** `GROVE_ALLOWED_HOSTS`: host names (any port of this server) or `host:port`. */
  allowedHosts?: readonly string[];
  /** `GROVE_ALLOWED_ORIGINS`: full origins such as `https://grove.example`. */
  allowedOrigins?: readonly string[];
}

const STATE_CHANGING = new Set(["POST", "PATCH", "PUT", "DELETE"]);
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

function bracketed(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/**
 * The set of acceptable `Host` header values for a server listening on `port`: every allowed
 * name with the port, and the bare name when the port is HTTP's default (browsers omit it).
 */
export function allowedHostValues(opts: TrustOptions, port: number): Set<string> {
  const names = [...LOOPBACK_NAMES, bracketed(opts.listenHost.toLowerCase())];
  const out = new Set<string>();
  for (const n of names) {
    out.add(`${n}:${port}`);
    if (port === 80) out.add(n);
  }
  for (const entry of opts.allowedHosts ?? []) {
    // `name:port` is taken as is; a bare name (or bracketed IPv6) is allowed on this server's port
    // and without a port: a tunnel or proxy on HTTPS's or HTTP's default port passes the public
    // name on as the browser sent it, without one (WEB-50).
    if (/^(\[[^\]]+\]|[^:]+):\d+$/.test(entry)) out.add(entry);
    else {
      out.add(`${bracketed(entry)}:${port}`);
      out.add(bracketed(entry));
    }
  }
  return out;
}

/** The media type of a Content-Type header without parameters, lower case. */
function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * SEC-5: one `onRequest` hook at the root of the app, so it runs before every handler —
 * API routes, WebSocket upgrades, the static page, the not-found handler and any route added
 * later:
 * 1. `Host` must name this server (DNS rebinding: a hostile name resolving to 127.0.0.1),
 * 2. a browser `Origin`, when sent, must be the page's own origin (`http(s)://<Host>`) or listed,
 * 3. POST/PATCH/PUT/DELETE must say `Content-Type: application/json`, which a cross-site form
 *    or a `no-cors` fetch cannot send without a CORS preflight that Grove never grants.
 */
export function installTrustGuard(app: FastifyInstance, opts: TrustOptions): void {
  let hosts: Set<string> | undefined;
  const origins = new Set(opts.allowedOrigins ?? []);
  const hostValues = (): Set<string> => {
    if (hosts) return hosts;
    const addr = app.server.address();
    const port = typeof addr === "object" && addr ? addr.port : 0;
    hosts = allowedHostValues(opts, port);
    return hosts;
  };
  app.addHook("onRequest", async (req: FastifyRequest) => {
    const host = (req.headers.host ?? "").toLowerCase();
    if (!hostValues().has(host))
      throw new AppError("host_not_allowed", "the Host header does not name this Grove server; add it to GROVE_ALLOWED_HOSTS if it should", {
        host: host.slice(0, 200),
      });
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const o = origin.toLowerCase();
      if (o !== `http://${host}` && o !== `https://${host}` && !origins.has(o)) {
        throw new AppError("origin_not_allowed", "requests from another origin are refused; add it to GROVE_ALLOWED_ORIGINS if it should be trusted", {
          origin: origin.slice(0, 200),
        });
      }
    }
    if (STATE_CHANGING.has(req.method) && mediaType(req.headers["content-type"]) !== "application/json") {
      throw new AppError("unsupported_media_type", `${req.method} requests must carry Content-Type: application/json, with or without a body`);
    }
  });
}

declare module "fastify" {
  interface FastifyRequest {
    /** The request body as received (JSON routes), for the signature of a forwarded request. */
    groveRawBody?: string;
  }
}

/**
 * JSON bodies with Fastify's prototype-poisoning-safe parser, except that an empty body is
 * allowed (a body-less POST still carries `Content-Type: application/json`, SEC-5).
 */
export function installJsonParser(app: FastifyInstance): void {
  const strict = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    // SBX-5: a forwarded request's signature covers the body exactly as it arrived.
    req.groveRawBody = typeof body === "string" ? body : "";
    if (body === "" || (typeof body === "string" && body.trim() === "")) {
      done(null, undefined);
      return;
    }
    strict(req, body as string, done);
  });
}
