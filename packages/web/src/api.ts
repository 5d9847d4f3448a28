/**
 * The HTTP client of `/api/v1`. With GROVE_AUTH_TOKEN set, open the page once as `/?token=…`:
 * the server answers with an HttpOnly, SameSite=Strict `grove_token` cookie and redirects to
 * the address without the token (SEC-6). Same-origin fetches and the WebSocket carry that
 * cookie by themselves, so the page's script never sees the token.
 */
import type { ErrorBody } from "@grove/protocol";

/** Removes a `?token=` the server did not accept from the address bar, and any token an older page kept. */
export function adoptTokenFromUrl(): void {
  localStorage.removeItem("grove.token");
  const url = new URL(location.href);
  if (!url.searchParams.has("token")) return;
  url.searchParams.delete("token");
  history.replaceState(history.state, "", url.pathname + url.search + url.hash);
}

/** An API error answer: `code: message` is what the page shows. */
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

/** `code: message` for any thrown value (network failures have no code). */
export function describeError(e: unknown): string {
  if (e instanceof ApiError) return e.toString();
  return `network_error: ${(e as Error)?.message ?? String(e)}`;
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  // SEC-5: the server refuses a state-changing request without this header, body or not.
  const headers: Record<string, string> = method === "GET" ? {} : { "content-type": "application/json" };
  const res = await fetch(`/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
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

export const api = {
  get: <T>(path: string) => request<T>("GET", path),
  post: <T>(path: string, body: unknown = {}) => request<T>("POST", path, body),
  patch: <T>(path: string, body: unknown) => request<T>("PATCH", path, body),
  del: <T>(path: string) => request<T>("DELETE", path),
};

/** `encodeURIComponent` for path segments. */
export const enc = encodeURIComponent;
