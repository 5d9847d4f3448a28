import { realpath } from "node:fs/promises";
import { AppError } from "../../domain/errors.js";
import type { RepositoryRecord } from "../../domain/records.js";
import { refreshError } from "../../git/remote-errors.js";
import { selectBase } from "../../git/base-select.js";
import { fetchOrigin, originUrl } from "../../git/remote-sync.js";
import { resolveBaseRef, resolveCommit } from "../../git/repository.js";
import type { Deps } from "../context.js";
import { refreshLocalBeforeRecreate } from "./refresh-local.js";
import type { PlannedSlot } from "../planned-slot.js";
import { remoteOf } from "./remote-context.js";
import type { RemoteIdentity } from "./remote-repositories.js";
import { isRemoteRepository, resolveRoute, resolveTaskRefreshRoutes, scopeIds, type RefreshScope, type ResolvedRoute } from "./refresh-routes.js";

export { isRemoteRepository, refreshRoute, type RefreshRouteKind, type RefreshScope } from "./refresh-routes.js";

/** RR-4 "decided before preparation": every slot's route is resolved before the first worktree (see resolveTaskRefreshRoutes). */
export async function assertRemoteRoutes(
  deps: Pick<Deps, "store" | "home" | "remote">,
  slots: PlannedSlot[],
  scope: RefreshScope,
): Promise<Map<string, ResolvedRoute>> {
  return resolveTaskRefreshRoutes(
    deps,
    slots.map((s) => ({ repository: s.repository, prNumber: s.attachment.prNumber })),
    scope,
  );
}

/** Origin rules before a managed fetch (RR-4): scoped path (provider check) and the provider's origin URL. */
async function verifyCheckout(deps: Pick<Deps, "git">, repo: RepositoryRecord, identity: RemoteIdentity, scope: RefreshScope): Promise<void> {
  const actual = await realpath(repo.path).catch(() => repo.path);
  const expected = await realpath(identity.expectedPath).catch(() => identity.expectedPath);
  const pathProblem = identity.provider.verifyCheckout?.({ expectedPath: expected, actualPath: actual, loc: identity.loc }) ?? null;
  const origin = await originUrl(deps.git, repo.path);
  const problem =
    pathProblem ??
    (origin !== identity.managedUrl ? `its origin is not ${identity.provider.displayName}'s URL for ${identity.loc.owner}/${identity.loc.name}` : null);
  if (problem) {
    throw new AppError(
      "refresh_checkout_mismatch",
      `refresh of repository ${repo.name} refused: ${problem} (${Object.entries(scopeIds(repo, scope))
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")})`,
      scopeIds(repo, scope),
    );
  }
}

/**
 * RR-5: the one strict refresh of a remote repository before a worktree is created or
 * recreated: base branch and, for a pull request, its head into `refs/remotes/origin/pr/<N>`
 * (RR-6), in one fetch. Returns whether the remote sync was handled (false for route `none`).
 * Any failure is an RR-7 error; nothing falls back to stale refs.
 */
export async function refreshRemote(
  deps: Pick<Deps, "store" | "git" | "log" | "home" | "remote">,
  repo: RepositoryRecord,
  input: { baseBranch: string; prNumber: number | null },
  scope: RefreshScope,
  resolved?: ResolvedRoute,
): Promise<boolean> {
  const planned = resolved ?? (await resolveRoute(deps, repo, scope));
  if (planned.kind === "none" || planned.kind === "local" || !planned.identity || !planned.access) return false;
  const { identity, access } = planned;
  if (planned.kind === "managed") await verifyCheckout(deps, repo, identity, scope);
  const prRef = input.prNumber !== null ? identity.provider.pullRequestRef(input.prNumber) : null;
  try {
    await fetchOrigin(deps.git, {
      repoPath: repo.path,
      baseBranch: input.baseBranch,
      ...(prRef && input.prNumber !== null ? { pr: { number: input.prNumber, ref: prRef } } : {}),
      access,
      timeoutMs: remoteOf(deps).refreshTimeoutMs,
    });
  } catch (e) {
    if (e instanceof AppError && (e.code === "git_failed" || e.code === "git_timeout")) {
      throw refreshError(e, { action: "refresh", repository: repo.name, ids: scopeIds(repo, scope) });
    }
    throw e;
  }
  deps.log.info({ repositoryId: repo.id, route: planned.kind, ...scope }, "remote sync handled");
  return true;
}

/**
 * `prepareStartPoint` for remote repositories: refresh by route, then the start point — the PR
 * head (RR-6), or the WT-3 base choice between the local and fetched base. After a successful
 * refresh the slot is remote-sync-handled: no other fetch follows (RR-5).
 */
export async function prepareRemoteStartPoint(
  deps: Pick<Deps, "store" | "git" | "log" | "home" | "remote">,
  slot: PlannedSlot,
  scope: RefreshScope,
): Promise<string> {
  // WT-6: refresh and base choice under the repository's lock (re-entrant for the worktree add).
  return deps.git.withRepoLock(slot.repository.path, () => startPointLocked(deps, slot, scope));
}

async function startPointLocked(deps: Pick<Deps, "store" | "git" | "log" | "home" | "remote">, slot: PlannedSlot, scope: RefreshScope): Promise<string> {
  const { repository: repo, attachment: att } = slot;
  const handled = await refreshRemote(deps, repo, { baseBranch: att.baseBranch, prNumber: att.prNumber }, scope);
  if (att.prNumber !== null) {
    if (!handled) {
      const have = await deps.git.run(["show-ref", "--verify", "--quiet", `refs/remotes/origin/pr/${att.prNumber}`], { cwd: repo.path, okExitCodes: [1] });
      if (have.exitCode !== 0) {
        throw new AppError(
          "refresh_missing_ref",
          `pull request ${att.prNumber} of repository ${repo.name} was never fetched and pullBeforeWorktree is off`,
          scopeIds(repo, scope),
        );
      }
    }
    return `refs/remotes/origin/pr/${att.prNumber}`;
  }
  // No refresh (pullBeforeWorktree off): the local base, else what an earlier fetch brought.
  if (!handled) return resolveBaseRef(deps.git, repo.path, att.baseBranch, { preferRemote: false });
  // WT-3 base choice, shared with the local route (git/base-select.ts).
  const fetched = await resolveCommit(deps.git, repo.path, `refs/remotes/origin/${att.baseBranch}`);
  if (fetched === null) throw new AppError("refresh_missing_ref", `the refresh of repository ${repo.name} brought no ${att.baseBranch}`, scopeIds(repo, scope));
  const local = await resolveCommit(deps.git, repo.path, `refs/heads/${att.baseBranch}`);
  if (local === null) return fetched;
  return (await selectBase(deps.git, repo.path, { local, fetched, branch: att.baseBranch })).startPoint;
}

/**
 * RR-5 / WT-3 for WT-5: before a recorded worktree is recreated, a remote repository gets its
 * refresh, and a local checkout with `pullBeforeWorktree` its fetch — only when the directory is
 * really missing. A valid worktree (reuse) is left alone and causes no network traffic; any
 * other mismatch is refused by `recreate` itself.
 */
export async function refreshBeforeRecreate(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "log" | "home" | "remote">,
  repo: RepositoryRecord,
  slot: { worktreePath: string; branch: string; baseBranch: string },
  scope: RefreshScope,
  resolved?: ResolvedRoute,
): Promise<void> {
  if (!isRemoteRepository(repo) && !repo.pullBeforeWorktree) return;
  const v = await deps.worktrees.validate({ repoPath: repo.path, worktreePath: slot.worktreePath, branch: slot.branch });
  if (v.ok || v.reason !== "missing") return;
  await refreshForRecreate(deps, repo, slot, scope, resolved);
}

/**
 * RR-5 for a slot the caller KNOWS is missing (its own cheap check said so): the refresh of its
 * route, then the caller recreates it. Never call this for a worktree that may be valid.
 */
export async function refreshForRecreate(
  deps: Pick<Deps, "store" | "git" | "log" | "home" | "remote">,
  repo: RepositoryRecord,
  slot: { baseBranch: string },
  scope: RefreshScope,
  resolved?: ResolvedRoute,
): Promise<void> {
  if (!isRemoteRepository(repo)) return refreshLocalBeforeRecreate(deps, repo, slot.baseBranch, scope);
  await deps.git.withRepoLock(repo.path, () => refreshRemote(deps, repo, { baseBranch: slot.baseBranch, prNumber: null }, scope, resolved));
}
