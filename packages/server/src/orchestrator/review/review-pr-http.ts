import { AppError } from "../../domain/errors.js";
import type { ApiRequest } from "../../providers/pull-requests.js";

/** Remaining provider API calls per API host, from the rate-limit headers of the last answer. */
export interface RateBudget {
  remaining: number;
  resetAt: number;
}

/** In-memory budgets per API host (one process; a restart starts optimistic). */
export class RateBudgets {
  private readonly byHost = new Map<string, RateBudget>();

  /** Whether the background refresher may spend a call on `url`'s host (keeps `reserve` for people). */
  allows(url: string, reserve: number, now = Date.now()): boolean {
    const b = this.byHost.get(new URL(url).host);
    return !b || b.resetAt <= now || b.remaining > reserve;
  }

  record(url: string, headers: Headers): void {
    const remaining = Number(headers.get("x-ratelimit-remaining") ?? headers.get("ratelimit-remaining") ?? NaN);
    const reset = Number(headers.get("x-ratelimit-reset") ?? headers.get("ratelimit-reset") ?? NaN);
    if (Number.isFinite(remaining)) this.byHost.set(new URL(url).host, { remaining, resetAt: Number.isFinite(reset) ? reset * 1000 : Date.now() + 60_000 });
  }
}

/** A provider answer: status 304 means "unchanged since the ETag". */
export interface ApiAnswer {
  status: number;
  json: unknown;
  etag: string | null;
}

/**
 * Sends one provider request with the credential in the Authorization header only. Maps
 * failures to typed, credential-free errors scoped to task/repository: 401/403 →
 * `provider_auth_failed`, 404 → `provider_not_found`, 400/409/422 → `provider_rejected`,
 * 429 or a spent budget → `provider_rate_limited`, anything else → `provider_failed`. The
 * provider's text is never passed on (it may quote the request).
 */
export async function callProvider(
  req: ApiRequest,
  opts: { authorization: string; etag?: string; budgets: RateBudgets; scope: Record<string, string>; repository: string; timeoutMs?: number },
): Promise<ApiAnswer> {
  const headers: Record<string, string> = { authorization: opts.authorization, accept: "application/json", "user-agent": "grove" };
  if (req.body !== undefined) headers["content-type"] = "application/json";
  if (opts.etag) headers["if-none-match"] = opts.etag;
  const what = `${req.method} pull-request API of repository ${opts.repository}`;
  let res: Response;
  try {
    res = await fetch(req.url, {
      method: req.method,
      headers,
      ...(req.body !== undefined && { body: JSON.stringify(req.body) }),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 20_000),
    });
  } catch {
    throw new AppError("provider_failed", `${what}: the provider could not be reached`, opts.scope);
  }
  opts.budgets.record(req.url, res.headers);
  const spent = res.headers.get("x-ratelimit-remaining") === "0" || res.headers.get("ratelimit-remaining") === "0";
  if (res.status === 429 || (res.status === 403 && spent)) {
    const reset = Number(res.headers.get("x-ratelimit-reset") ?? res.headers.get("ratelimit-reset") ?? NaN);
    const retryAt = Number.isFinite(reset) ? new Date(reset * 1000).toISOString() : undefined;
    throw new AppError("provider_rate_limited", `${what}: the rate limit is spent${retryAt ? ` until ${retryAt}` : ""}`, {
      ...opts.scope,
      ...(retryAt && { retryAt }),
    });
  }
  if (res.status === 304) return { status: 304, json: undefined, etag: res.headers.get("etag") };
  const code =
    res.status === 401 || res.status === 403
      ? "provider_auth_failed"
      : res.status === 404
        ? "provider_not_found"
        : [400, 409, 422].includes(res.status)
          ? "provider_rejected"
          : res.ok
            ? null
            : "provider_failed";
  if (code) throw new AppError(code, `${what}: the provider answered ${res.status}`, { ...opts.scope, status: res.status });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    throw new AppError("provider_failed", `${what}: the provider's answer is not JSON`, opts.scope);
  }
  return { status: res.status, json, etag: res.headers.get("etag") };
}
