import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { AppError } from "../domain/errors.js";
import { signForward } from "./forward-sign.js";

const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };

/** Where and how to send one forwarded request. */
export interface ForwardTarget {
  runnerId: string;
  /** The runner's advertised base URL. */
  url: string;
}

export interface ForwardCall {
  method: string;
  /** Path and query under the runner's URL, `/api/v1/...`; `token` query parameters removed. */
  path: string;
  body: string | undefined;
  accept: string | undefined;
  from: string;
  /** Signs the forward (SBX-5); never sent. */
  secret: string;
  /** The person sent this request to the first runner (their token or cookie checked there). */
  person: boolean;
  timeoutMs: number;
}

/** The request URL without any `token` query parameter: the secret authenticates a forward, a person's token stays here. */
export function forwardPath(url: string): string {
  const u = new URL(url, "http://grove.invalid");
  u.searchParams.delete("token");
  return u.pathname + u.search;
}

/**
 * Headers of a forward to `target`: its signature (SBX-5: HMAC of method, path, body, time,
 * both runner ids, nonce, person flag — the secret itself never travels), no cookie, no Origin,
 * no bearer token.
 */
export function forwardHeaders(
  target: string,
  call: Pick<ForwardCall, "method" | "path" | "body" | "from" | "secret" | "accept" | "person">,
  withBody: boolean,
): Record<string, string> {
  return {
    ...signForward(call.secret, {
      method: call.method,
      path: call.path,
      body: withBody ? (call.body ?? "") : "",
      from: call.from,
      target,
      person: call.person,
    }),
    accept: call.accept ?? "application/json",
    ...(withBody ? { "content-type": "application/json" } : {}),
  };
}

/**
 * Sends one request to another runner and resolves with its response head (the body still to
 * be read or streamed). Never retried: a request that may have reached the runner is not sent
 * twice. A refused connection, a reset before the answer or no answer within `timeoutMs` is
 * `502 runner_unreachable`.
 */
export function sendForward(target: ForwardTarget, call: ForwardCall): Promise<IncomingMessage> {
  // The advertised URL may carry a path prefix (a proxy in front of the runner).
  const url = new URL(target.url.replace(/\/+$/, "") + call.path);
  const isHttps = url.protocol === "https:";
  const hasBody = call.body !== undefined || !["GET", "HEAD"].includes(call.method);
  const body = call.body ?? "";
  return new Promise((resolve, reject) => {
    const req = (isHttps ? https : http).request(
      url,
      {
        method: call.method,
        agent: isHttps ? agents.https : agents.http,
        headers: { ...forwardHeaders(target.runnerId, call, hasBody), ...(hasBody ? { "content-length": String(Buffer.byteLength(body)) } : {}) },
      },
      (res) => {
        req.setTimeout(0);
        resolve(res);
      },
    );
    req.setTimeout(call.timeoutMs, () => req.destroy(new Error(`no answer within ${call.timeoutMs} ms`)));
    req.on("error", (e: NodeJS.ErrnoException) =>
      reject(
        new AppError(
          "runner_unreachable",
          `runner ${target.runnerId} did not answer the forwarded request (${e.code ?? e.message}); it may or may not have run there`,
          {
            runnerId: target.runnerId,
            reason: e.code ?? "timeout",
          },
        ),
      ),
    );
    if (hasBody) req.end(body);
    else req.end();
  });
}

/** Reads a whole (small) forwarded answer. */
export async function readAll(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Response headers passed back to the client (hop-by-hop ones are the server's own business). */
export function passedHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ["content-type", "content-length", "cache-control", "location", "content-disposition"]) {
    const v = res.headers[name];
    if (typeof v === "string") out[name] = v;
  }
  return out;
}
