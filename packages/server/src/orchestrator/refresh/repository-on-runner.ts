import { existsSync } from "node:fs";
import { join, sep } from "node:path";
import { newId } from "../../domain/ids.js";
import type { RepositoryRecord } from "../../domain/records.js";
import type { Deps } from "../context.js";
import { cloneManaged, remoteIdentity } from "./remote-repositories.js";
import { isRemoteRepository, resolveRoute, scopeIds, type RefreshScope } from "./refresh-routes.js";

/**
 * The one seam for "where is this repository's git data on THIS runner".
 *
 * A local checkout exists only on the runner that registered it (placement never sends a task
 * elsewhere): its path is the row's. A remote repository is usable on every runner, each keeping
 * its own managed clone at `$GROVE_HOME/clones/<provider>/<host>/<owner>/<name>` of ITS home;
 * the row's `path` is the registering runner's clone and must never be used by another runner
 * (that directory is not on its disk, or is another machine's). Every runtime git operation
 * (worktree creation and removal, refresh, review, Changes, doctor) takes its repository path
 * from here: read a row through `repositoryOnThisRunner` / `getRepositoryOnThisRunner` rather
 * than using `deps.store.getRepository(...).path`.
 */
export function repositoryPathOnThisRunner(deps: Pick<Deps, "home" | "remote">, repo: RepositoryRecord): string {
  if (!isRemoteRepository(repo)) return repo.path;
  // The registering runner (or one whose home has the same path): the row's own clone.
  if (repo.path.startsWith(join(deps.home, "clones") + sep)) return repo.path;
  return remoteIdentity(deps, repo.url ?? "", repo.provider).expectedPath;
}

/**
 * Where this runner can read the repository's branches now: its path here, or null for a remote
 * repository this runner has not cloned yet. Checks that need one (a base branch at task
 * creation, a new default branch) are then left to the runner that makes the worktree, which
 * clones first and refuses a missing base itself; another runner's path is never read.
 */
export function readablePathOnThisRunner(deps: Pick<Deps, "home" | "remote">, repo: RepositoryRecord): string | null {
  const path = repositoryPathOnThisRunner(deps, repo);
  return isRemoteRepository(repo) && !existsSync(path) ? null : path;
}

/** The row with `path` as on this runner (see repositoryPathOnThisRunner). Idempotent. */
export function repositoryOnThisRunner(deps: Pick<Deps, "home" | "remote">, repo: RepositoryRecord): RepositoryRecord {
  const path = repositoryPathOnThisRunner(deps, repo);
  return path === repo.path ? repo : { ...repo, path };
}

/** `store.getRepository` for runtime work: the row with this runner's path, or undefined. */
export async function getRepositoryOnThisRunner(deps: Pick<Deps, "store" | "home" | "remote">, id: string): Promise<RepositoryRecord | undefined> {
  const repo = await deps.store.getRepository(id);
  return repo ? repositoryOnThisRunner(deps, repo) : undefined;
}

/** First clones in flight on this runner, by clone path: concurrent first launches share one. */
const cloning = new Map<string, Promise<void>>();

/**
 * Makes sure this runner has its managed clone of a remote repository before a
 * worktree is created or recreated from it; a no-op for local checkouts and existing clones.
 * The first use on a runner clones into this runner's clone path exactly as registration does
 * (temporary sibling renamed into place, `repository.clone_progress` events, the credential
 * through the origin-bound helper) with the repository's registered access: the provider
 * credential for policy `managed` (opened with this runner's credential key: placement only
 * sends such a task to a runner whose key sealed it), the host's own git credentials for
 * `executor`. `pullBeforeWorktree` off does not skip this clone: there is nothing to start from
 * without it. Concurrent calls for one path share a single clone.
 */
export async function ensureRepositoryOnThisRunner(
  deps: Pick<Deps, "store" | "git" | "bus" | "log" | "home" | "remote">,
  repo: RepositoryRecord,
  scope: RefreshScope,
): Promise<void> {
  if (!isRemoteRepository(repo)) return;
  const dest = repositoryPathOnThisRunner(deps, repo);
  if (existsSync(dest)) return;
  let pending = cloning.get(dest);
  if (!pending) {
    pending = firstClone(deps, repo, dest, scope).finally(() => cloning.delete(dest));
    cloning.set(dest, pending);
  }
  await pending;
}

async function firstClone(
  deps: Pick<Deps, "store" | "git" | "bus" | "log" | "home" | "remote">,
  repo: RepositoryRecord,
  dest: string,
  scope: RefreshScope,
): Promise<void> {
  if (existsSync(dest)) return;
  // The registered access whatever pullBeforeWorktree says (route `none` still needs a clone).
  const route = await resolveRoute(deps, { ...repo, pullBeforeWorktree: true }, scope);
  if (!route.identity || !route.access) return;
  deps.log.info({ repositoryId: repo.id, path: dest, route: route.kind, ...scope }, "first use of a remote repository on this runner: cloning it");
  await cloneManaged(deps, {
    identity: route.identity,
    access: route.access,
    dest,
    repositoryId: repo.id,
    name: repo.name,
    tmpTag: newId("clone"),
    ids: scopeIds(repo, scope),
  });
}
