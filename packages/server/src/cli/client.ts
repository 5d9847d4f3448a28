/**
 * The CLI's only way to reach Grove: a small fetch-based client for the `/api/v1` HTTP API
 * (CONTRACT.md). Every failure becomes a {@link CliError} carrying a snake_case code, so the
 * entry point can print the one-line `error: CODE: message` the contract promises.
 */

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

/** Where the client connects and how it authenticates. */
export interface ClientOptions {
  /** Server origin, e.g. `http://127.0.0.1:7420`; a trailing slash or `/api/v1` suffix is tolerated. */
  server: string;
  /** Sent as `Authorization: Bearer <token>` when set (GROVE_AUTH_TOKEN). */
  token?: string | undefined;
}

type Query = Record<string, string | number | boolean | undefined>;

/** The default server URL: `http://127.0.0.1:$GROVE_PORT` (7420 when unset). */
export function defaultServerUrl(env: NodeJS.ProcessEnv = process.env): string {
  const port = env.GROVE_PORT && env.GROVE_PORT.trim() !== "" ? env.GROVE_PORT.trim() : "7420";
  return `http://127.0.0.1:${port}`;
}

/** Thin typed HTTP client. Callers pass the response type they expect from the contract. */
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

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>("GET", path, { query });
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>("POST", path, { body });
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>("PATCH", path, { body });
  }

  delete<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>("DELETE", path, { query });
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
    // SEC-5: every state-changing request says JSON, body or not (the server answers 415 otherwise).
    if (opts.body !== undefined || method !== "GET") headers["content-type"] = "application/json";
    if (opts.body !== undefined) payload = JSON.stringify(opts.body);

    let res: Response;
    try {
      res = await fetch(url, { method, headers, body: payload });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (e as Error).message;
      throw new CliError("server_unreachable", `cannot reach the Grove server at ${url.origin} (${why}); is \`grove serve\` running?`);
    }

    const text = await res.text();
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
