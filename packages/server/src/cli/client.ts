/**
 * The CLI's only way to reach Grove: a small node:http client for the `/api/v1` HTTP API
 * (`@grove/protocol/operations`). Every failure becomes a {@link CliError} carrying a snake_case
 * code, so the entry point can print the one-line `error: CODE: message` of CLI-16.
 */

import { callOperation, type OperationArgs, type OperationId, type ResponseOf } from "@grove/protocol/client";

/** A failure the CLI reports as `error: CODE: message` and exit code 1. */
export class CliError extends Error {
  readonly code: string;
  /** HTTP status when the error came from the server; undefined for local failures. */
  readonly status: number | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, opts: { status?: number; details?: Record<string, unknown> } = {}) {
    super(message);
    this.name = "CliError";
    this.code = code;
    this.status = opts.status;
    this.details = opts.details;
  }
}

export function isCliError(e: unknown): e is CliError {
  return e instanceof CliError;
}

/**
 * Rewrites API parameter names in a server message into the CLI's flags, e.g.
 * `pass discardChanges=true` → `pass --discard-changes`: a person at the shell cannot type the former.
 */
export function withCliFlags(message: string, flags: Record<string, string>): string {
  let text = message;
  for (const [param, flag] of Object.entries(flags)) text = text.replace(new RegExp(`\\b${param}(=true)?\\b`, "g"), flag);
  return text;
}

/** Where the client connects and how it authenticates. */
export interface ClientOptions {
  /** Server origin, e.g. `http://127.0.0.1:7420`; a trailing slash or `/api/v1` suffix is tolerated. */
  server: string;
  /** Sent as `Authorization: Bearer <token>` when set (GROVE_AUTH_TOKEN). */
  token?: string | undefined;
}

type Query = Record<string, string | number | boolean | undefined>;

/** The default server URL: `http://127.0.0.1:$GROVE_PORT` (7420 when unset); a bad GROVE_PORT is named. */
export function defaultServerUrl(env: NodeJS.ProcessEnv = process.env): string {
  const text = env.GROVE_PORT?.trim() ?? "";
  if (text === "") return "http://127.0.0.1:7420";
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) {
    throw new CliError("invalid_config", `GROVE_PORT must be a port number (1-65535) to find the server, got "${env.GROVE_PORT}"; or pass --server URL`);
  }
  return `http://127.0.0.1:${port}`;
}

/** The default server as `--help` shows it: the URL GROVE_PORT gives, or why it gives none. */
export function defaultServerHelp(env: NodeJS.ProcessEnv = process.env): string {
  try {
    const url = defaultServerUrl(env);
    return env.GROVE_PORT?.trim() ? `${url}, from GROVE_PORT` : `${url}; set GROVE_PORT to change the port`;
  } catch {
    return `none: GROVE_PORT="${env.GROVE_PORT}" is not a port number`;
  }
}

/** Thin HTTP client; commands call the API's operations through `call` (typed from the operation table). */
export class GroveClient {
  readonly base: string;
  readonly #token: string | undefined;

  constructor(opts: ClientOptions) {
    let origin = opts.server.trim().replace(/\/+$/, "");
    if (origin.endsWith("/api/v1")) origin = origin.slice(0, -"/api/v1".length);
    try {
      new URL(origin);
    } catch {
      throw new CliError("invalid_arguments", `--server is not a URL: ${opts.server}`);
    }
    this.base = `${origin}/api/v1`;
    this.#token = opts.token && opts.token !== "" ? opts.token : undefined;
  }

  /**
   * Calls one operation of the table (`@grove/protocol/operations`) by its operationId: the path,
   * query and body it takes and the answer it gives are the table's, so a renamed path or a
   * changed body is a type error here.
   */
  call<I extends OperationId>(id: I, ...input: OperationArgs<I>): Promise<ResponseOf<I>> {
    return callOperation((r) => this.request(r.method, r.path, { query: r.query, body: r.body }), id, ...input);
  }

  /**
   * Sends one request. Resolves with the parsed JSON body, or `undefined` for an empty body
   * (202/204 answers). Rejects with a CliError: the server's own `{error:{code,message}}` when
   * it sent one, `server_unreachable` when nothing answered, `http_<status>` otherwise.
   */
  async request<T>(method: string, path: string, opts: { query?: Query | undefined; body?: unknown } = {}): Promise<T> {
    const url = new URL(this.base + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.#token) headers.authorization = `Bearer ${this.#token}`;
    let payload: string | undefined;
    // Every state-changing request is JSON, body or not (the server answers 415 otherwise).
    if (opts.body !== undefined || method !== "GET") {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(opts.body ?? {});
    }

    let res: { status: number; ok: boolean; text: string };
    try {
      res = await send(url, method, headers, payload);
    } catch (e) {
      const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      throw new CliError(
        "server_unreachable",
        `cannot reach the Grove server at ${url.origin} (${why}); start it with \`npm start\` or \`grove serve\`, or set GROVE_PORT to the port it listens on`,
      );
    }

    const text = res.text;
    let parsed: unknown;
    if (text !== "") {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    if (res.ok) {
      if (text !== "" && parsed === undefined) {
        throw new CliError("invalid_response", `${method} ${url.pathname} answered ${res.status} with a body that is not JSON`);
      }
      return parsed as T;
    }
    throw errorFromResponse(res.status, parsed, `${method} ${url.pathname}`);
  }
}

function errorFromResponse(status: number, body: unknown, what: string): CliError {
  const err = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  if (err && typeof err.code === "string") {
    const message = typeof err.message === "string" ? err.message : `${what} failed with HTTP ${status}`;
    const details = err.details && typeof err.details === "object" ? (err.details as Record<string, unknown>) : undefined;
    return new CliError(err.code, message, { status, ...(details ? { details } : {}) });
  }
  return new CliError(`http_${status}`, `${what} failed with HTTP ${status}`, { status });
}

/**
 * One HTTP exchange over node:http (https loaded only for an https server). Not `fetch`: its
 * implementation costs a short-lived CLI process a noticeable share of its start-up.
 */
async function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  payload: string | undefined,
): Promise<{ status: number; ok: boolean; text: string }> {
  const { request } = url.protocol === "https:" ? await import("node:https") : await import("node:http");
  const allHeaders = payload === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(payload)) };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: allHeaders }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        resolve({ status, ok: status >= 200 && status < 300, text: Buffer.concat(chunks).toString("utf8") });
      });
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * `Promise.all` whose failure is deterministic: it waits for every request and rejects with the
 * first failure in argument order (the main resource's `not_found`, not whichever 404 came back
 * first).
 */
export async function allInOrder<T extends readonly unknown[]>(promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(promises as readonly Promise<unknown>[]);
  for (const s of settled) if (s.status === "rejected") throw s.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
