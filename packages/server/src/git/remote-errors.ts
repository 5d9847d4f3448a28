import { AppError, isAppError } from "../domain/errors.js";

/** The typed refresh failures of RR-7. */
export type RefreshErrorCode = "refresh_auth_failed" | "refresh_network_failed" | "refresh_timeout" | "refresh_missing_ref";

const AUTH =
  /authentication failed|could not read (username|password)|http (basic: )?access denied|returned error: 40[13]|permission denied \((publickey|password)|invalid username or password/i;
const MISSING = /couldn't find remote ref|remote ref does not exist|not our ref|repository .* not found|returned error: 404/i;

/**
 * Maps a failed clone/fetch to an RR-7 code from git's own message. The message returned is
 * Grove's own wording: git's stderr is never passed on, because a host may echo a URL, and the
 * caller adds the repository and ids.
 */
export function classifyRemoteFailure(e: unknown): { code: RefreshErrorCode; reason: string } {
  if (isAppError(e) && e.code === "git_timeout") return { code: "refresh_timeout", reason: "the git host did not answer before the timeout" };
  const text = e instanceof Error ? e.message : String(e);
  if (AUTH.test(text)) return { code: "refresh_auth_failed", reason: "the git host refused the credential" };
  if (MISSING.test(text)) return { code: "refresh_missing_ref", reason: "a ref the refresh needs does not exist on the git host" };
  if (/returned error: 5\d\d/.test(text)) return { code: "refresh_network_failed", reason: "the git host answered with a server error" };
  return { code: "refresh_network_failed", reason: "the git host could not be reached" };
}

/** Builds the credential-safe AppError of RR-7: names the repository; details carry the ids. */
export function refreshError(e: unknown, scope: { action: string; repository: string; ids: Record<string, string> }): AppError {
  const { code, reason } = classifyRemoteFailure(e);
  const ids = Object.entries(scope.ids)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return new AppError(code, `${scope.action} of repository ${scope.repository} failed: ${reason} (${ids})`, { ...scope.ids });
}
