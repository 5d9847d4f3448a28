/**
 * The HTTP client of `/api/v1`. Authentication rides on the server's HttpOnly `grove_token`
 * cookie (set when the page is opened as `/?token=…`), so the page never holds the token:
 * `adoptTokenFromUrl` only removes it from the address bar. Every state-changing request
 * carries `Content-Type: application/json` with a JSON body, as the server requires.
 */
import type { ErrorBody } from "@grove/protocol";
import { callOperation, type OperationArgs, type OperationId, type ResponseOf } from "@grove/protocol/client";

/** Removes `?token=` from the visible URL; the server already turned it into a cookie. */
export function adoptTokenFromUrl(): void {
  localStorage.removeItem("grove.token");
  const url = new URL(location.href);
  if (!url.searchParams.has("token")) return;
  url.searchParams.delete("token");
  history.replaceState(history.state, "", url.pathname + url.search + url.hash);
}

/** An API error answer; `code` picks the person's words in `human-errors.ts`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  override toString(): string {
    return `${this.code}: ${this.message}`;
  }
}

/** `code: message` for any thrown value (network failures have no code of their own). */
export function describeError(e: unknown): string {
  if (e instanceof ApiError) return e.toString();
  return `network_error: ${(e as Error)?.message ?? String(e)}`;
}

const STATE_CHANGING = new Set(["POST", "PATCH", "PUT", "DELETE"]);

let readGate: Promise<void> | undefined;
/** WEB-19: GETs wait for `gate` before they are sent (the event stream's first open, live/first-reads.ts). */
export function holdReads(gate: Promise<void>): void {
  const held: Promise<void> = gate.then(() => {
    if (readGate === held) readGate = undefined;
  });
  readGate = held;
}

/** One request; resolves to the parsed JSON answer, throws `ApiError` for any non-2xx. */
export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  let payload: string | undefined;
  if (method === "GET" && readGate) await readGate;
  if (STATE_CHANGING.has(method)) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body ?? {});
  }
  const res = await fetch(`/api/v1${path}`, { method, headers, body: payload, credentials: "same-origin" });
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!res.ok) {
    const err = (parsed as ErrorBody | undefined)?.error;
    if (err && typeof err.code === "string") throw new ApiError(res.status, err.code, err.message, err.details);
    throw new ApiError(res.status, `http_${res.status}`, typeof parsed === "string" && parsed ? parsed.slice(0, 200) : res.statusText);
  }
  return parsed as T;
}

/**
 * Calls one operation of the API's table (`@grove/protocol/operations`) by its operationId: the
 * path, query and body it takes and the answer it gives are the table's, so a renamed path or a
 * changed body is a type error in the page.
 */
export function call<I extends OperationId>(id: I, ...input: OperationArgs<I>): Promise<ResponseOf<I>> {
  return callOperation(
    (r) => {
      const query = new URLSearchParams(r.query).toString();
      return request(r.method, query ? `${r.path}?${query}` : r.path, r.body);
    },
    id,
    ...input,
  );
}
