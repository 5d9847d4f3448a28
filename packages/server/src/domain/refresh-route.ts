import type { RepositoryRecord } from "./records.js";

/**
 * RR-4: how a repository is refreshed before a new or recreated worktree.
 * - `managed`: deferred strict authenticated refresh with the provider credential (GitHub with
 *   policy `managed`; GitLab, Azure DevOps — checkout path verified — and plugins always);
 * - `executor`: GitHub only, policy `executor`: no server credential; fetch through the
 *   configured origin with the host's own git credentials and ssh, non-interactively;
 * - `local`: a local checkout (the worktree manager's own fetch, WT-3);
 * - `none`: `pullBeforeWorktree` off — no network at all.
 */
export type RefreshRouteKind = "managed" | "executor" | "local" | "none";

/**
 * Seed 004: only GitHub has an executor route. Deliberately not a provider capability: a
 * plugin must not be able to opt into host credentials (RR-8 keeps the rule in one place).
 */
const EXECUTOR_PROVIDERS: ReadonlySet<string> = new Set(["github"]);

/** Whether `provider` may use the task credential policy `executor` (refused at registration otherwise). */
export function allowsExecutorPolicy(providerId: string): boolean {
  return EXECUTOR_PROVIDERS.has(providerId);
}

/** Whether the repository is a provider clone (RR-1) rather than a person's local checkout. */
export function isRemoteRepository(repo: RepositoryRecord): boolean {
  return repo.provider !== "local" && repo.url !== null;
}

/**
 * The RR-4 routing table, a pure decision: route = f(provider, `pullBeforeWorktree`, the task
 * git credential policy RR-3 stored on the repository). A non-GitHub row that still says
 * `executor` (registered before this rule) is routed through its provider credential.
 */
export function refreshRoute(repo: RepositoryRecord): RefreshRouteKind {
  if (!isRemoteRepository(repo)) return "local";
  if (!repo.pullBeforeWorktree) return "none";
  return repo.credentialPolicy === "executor" && allowsExecutorPolicy(repo.provider) ? "executor" : "managed";
}

/**
 * Whether a runner must open the repository's stored credential to clone and refresh
 * it — a remote repository with a credential whose route is not GitHub's `executor` (which uses
 * the host's own git credentials). Such a repository is placed only on runners holding the key
 * that sealed the credential; every other repository fits every runner as far as keys go.
 */
export function needsCredentialKey(repo: RepositoryRecord): boolean {
  return isRemoteRepository(repo) && repo.hasCredential && !(repo.credentialPolicy === "executor" && allowsExecutorPolicy(repo.provider));
}
