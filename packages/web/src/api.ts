/**
 * The HTTP client of `/api/v1`. With GROVE_AUTH_TOKEN set, open the page once as `/?token=…`:
 * the token is kept in localStorage and sent as a bearer token (and as `?token=` on the
 * WebSocket, where browsers cannot set headers).
 */
import type { ErrorBody } from "@grove/protocol";

const TOKEN_KEY = "grove.token";

export function token(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

/** Moves `?token=` from the address bar into localStorage (and out of the visible URL). */
export function adoptTokenFromUrl(): void {
  const url = new URL(location.href);
  const t = url.searchParams.get("token");
  if (!t) return;
  localStorage.setItem(TOKEN_KEY, t);
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
  const headers: Record<string, string> = {};
  const t = token();
  if (t) headers.authorization = `Bearer ${t}`;
  if (body !== undefined) headers["content-type"] = "application/json";
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
