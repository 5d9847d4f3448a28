import { AppError, isAppError } from "../../domain/errors.js";
import type { RepositoryRecord } from "../../domain/records.js";
import { openSecret } from "../../git/credential-vault.js";
import type { RemoteAccess } from "../../git/remote-sync.js";
import type { Deps } from "../context.js";
import { credentialKey } from "./remote-context.js";
import { remoteIdentity, type RemoteIdentity } from "./remote-repositories.js";
import { refreshRoute, type RefreshRouteKind } from "../../domain/refresh-route.js";

export { allowsExecutorPolicy, isRemoteRepository, refreshRoute, type RefreshRouteKind } from "../../domain/refresh-route.js";

/** Scope of one refresh, for RR-7 errors: which task, which session. */
export interface RefreshScope {
  taskId: string;
  sessionId?: string | undefined;
}

/** A repository's decided route with everything its refresh needs (credential already opened). */
export interface ResolvedRoute {
  repository: RepositoryRecord;
  kind: RefreshRouteKind;
  identity?: RemoteIdentity;
  access?: RemoteAccess;
}

/** RR-7: the ids every refresh-path error carries. */
export function scopeIds(repo: RepositoryRecord, scope: RefreshScope): Record<string, string> {
  return { taskId: scope.taskId, ...(scope.sessionId ? { sessionId: scope.sessionId } : {}), repositoryId: repo.id };
}

/** Re-throws `e` with the RR-7 scope added to its details (an AppError keeps its code). */
export function scoped(e: unknown, repo: RepositoryRecord, scope: RefreshScope): unknown {
  if (!isAppError(e)) return e;
  return new AppError(e.code, e.message, { ...(e.details ?? {}), ...scopeIds(repo, scope) });
}

/**
 * Decides one repository's route and opens what it needs (provider, origin, credential).
 * Throws typed, scoped errors: `invalid_request` (URL/provider), `refresh_auth_failed` (no
 * stored credential), `credential_unreadable` (the stored one cannot be opened).
 */
export async function resolveRoute(deps: Pick<Deps, "store" | "home" | "remote">, repo: RepositoryRecord, scope: RefreshScope): Promise<ResolvedRoute> {
  const kind = refreshRoute(repo);
  if (kind === "local" || kind === "none") return { repository: repo, kind };
  const ids = scopeIds(repo, scope);
  const fail = (code: "invalid_request" | "refresh_auth_failed" | "credential_unreadable", why: string) =>
    new AppError(
      code,
      `refresh of repository ${repo.name} cannot start: ${why} (${Object.entries(ids)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")})`,
      ids,
    );
  let identity: RemoteIdentity;
  try {
    identity = remoteIdentity(deps, repo.url ?? "", repo.provider);
  } catch (e) {
    throw fail("invalid_request", e instanceof Error ? e.message : String(e));
  }
  if (kind === "executor") return { repository: repo, kind, identity, access: { kind: "executor" } };
  const sealed = await deps.store.getCredential(repo.id);
  if (!sealed) throw fail("refresh_auth_failed", `${identity.provider.displayName} needs a stored credential and there is none`);
  let cred: { token: string; username: string | null };
  try {
    cred = JSON.parse(openSecret(credentialKey(deps), repo.id, sealed)) as { token: string; username: string | null };
  } catch {
    throw fail("credential_unreadable", "the stored credential cannot be decrypted with this server's key (credential.key changed?)");
  }
  const form = identity.provider.credentialForm({ token: cred.token, username: cred.username ?? undefined });
  return { repository: repo, kind, identity, access: { kind: "managed", originUrl: identity.managedUrl, credential: form } };
}

/** One repository a task is about to prepare, with the pull request it checks out, if any. */
export interface RouteTarget {
  repository: RepositoryRecord;
  prNumber?: number | null;
}

/**
 * RR-4 "decided before preparation" — call this before the FIRST worktree of a task is
 * created, recreated or refreshed (launch, resume, prompt, restore, update-from-base): resolves
 * every target's refresh route, opens its credential and checks its pull-request ref, and throws
 * the first failure (typed, scoped with task, session and repository ids) before anything has
 * touched the network or the disk. Returns the routes by repository id; callers may pass them
 * on to the refresh so nothing is resolved twice. Side-effect free.
 */
export async function resolveTaskRefreshRoutes(
  deps: Pick<Deps, "store" | "home" | "remote">,
  targets: readonly RouteTarget[],
  scope: RefreshScope,
): Promise<Map<string, ResolvedRoute>> {
  const out = new Map<string, ResolvedRoute>();
  for (const t of targets) {
    const route = out.get(t.repository.id) ?? (await resolveRoute(deps, t.repository, scope));
    out.set(t.repository.id, route);
    const pr = t.prNumber ?? null;
    if (pr !== null && route.identity && !route.identity.provider.pullRequestRef(pr)) {
      throw new AppError("invalid_request", `${route.identity.provider.displayName} has no pull-request refs`, scopeIds(t.repository, scope));
    }
  }
  return out;
}
