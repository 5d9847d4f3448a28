import { parseApiUrl } from "../../providers/api-url.js";
import { mkdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { CreateRepositoryBody } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import { DEFAULT_BRANCH_TEMPLATE, assertBranchName, renderBranchName } from "../../domain/layout.js";
import type { RepositoryRecord } from "../../domain/records.js";
import { assertSparseDirs } from "../../domain/sparse-checkout.js";
import { sealSecret } from "../../git/credential-vault.js";
import { refreshError } from "../../git/remote-errors.js";
import { cloneRemote, type RemoteAccess } from "../../git/remote-sync.js";
import { branchExists, inspectRepository } from "../../git/repository.js";
import type { GitProvider, RemoteUrl, RepoLocation } from "../../providers/provider.js";
import { hostDir, parseRemoteUrl } from "../../providers/url.js";
import type { Deps } from "../context.js";
import { credentialKey, credentialKeyIdOf, remoteOf } from "./remote-context.js";
import { allowsExecutorPolicy } from "../../domain/refresh-route.js";

/** Where a provider repository's managed clone lives (RR-1): `$GROVE_HOME/clones/<provider>/<host>/<owner>/<name>`. */
export function clonePath(home: string, providerId: string, url: RemoteUrl, loc: RepoLocation): string {
  return join(home, "clones", providerId, hostDir(url), ...loc.owner.split("/"), loc.name);
}

/** A remote repository's parsed identity, recomputed from its stored URL when needed. */
export interface RemoteIdentity {
  provider: GitProvider;
  url: RemoteUrl;
  loc: RepoLocation;
  /** The managed route's origin (provider.cloneUrl). */
  managedUrl: string;
  expectedPath: string;
}

/** Parses and resolves `rawUrl` against the provider registry; `invalid_request` on any mismatch. */
export function remoteIdentity(deps: Pick<Deps, "home" | "remote">, rawUrl: string, providerId: string | undefined): RemoteIdentity {
  const url = parseRemoteUrl(rawUrl);
  const provider = remoteOf(deps).providers.resolve(url, providerId);
  const loc = provider.parseLocation(url);
  if ("error" in loc) throw new AppError("invalid_request", loc.error, { field: "url" });
  const managedUrl = url.scheme === "ssh" ? provider.cloneUrl({ ...url, scheme: "https", port: null }, loc) : provider.cloneUrl(url, loc);
  return { provider, url, loc, managedUrl, expectedPath: clonePath(deps.home, provider.id, url, loc) };
}

/**
 * RR-1: `git clone` of a remote repository into `dest` (its managed clone path on this runner)
 * with progress as `repository.clone_progress` events. Clones into a temporary sibling and
 * renames it into place only after success: `dest` either does not exist or is a whole clone.
 * The origin is the provider's managed URL for `managed` access (the credential reaches git only
 * through the origin-bound helper, RR-2), the URL as registered for `executor` (RR-3). A `dest`
 * that exists already is `repository_exists` (details.path). Clone failures are RR-7 errors
 * carrying `ids`.
 */
export async function cloneManaged(
  deps: Pick<Deps, "git" | "bus" | "remote">,
  o: { identity: RemoteIdentity; access: RemoteAccess; dest: string; repositoryId: string; name: string; tmpTag: string; ids: Record<string, string> },
): Promise<void> {
  const { identity: id, access } = o;
  // Managed: the provider's origin rule; executor: the origin exactly as given (an SSH URL stays SSH, RR-3).
  const origin = access.kind === "managed" ? id.managedUrl : id.url.original;
  const parent = dirname(o.dest);
  await mkdir(parent, { recursive: true });
  const tmp = join(parent, `.${id.loc.name}.clone-${o.tmpTag}`);
  try {
    await cloneRemote(deps.git, {
      url: origin,
      dest: tmp,
      cwd: parent,
      access,
      timeoutMs: remoteOf(deps).cloneTimeoutMs,
      onProgress: (p) => deps.bus.publish("repository.clone_progress", { repositoryId: o.repositoryId, url: origin, phase: p.phase, percent: p.percent }),
    });
    await rename(tmp, o.dest);
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    if (e instanceof AppError && (e.code === "git_failed" || e.code === "git_timeout")) {
      throw refreshError(e, { action: "clone", repository: `${o.name} (${id.provider.displayName} ${id.loc.owner}/${id.loc.name})`, ids: o.ids });
    }
    if ((e as NodeJS.ErrnoException).code === "ENOTEMPTY" || (e as NodeJS.ErrnoException).code === "EEXIST") {
      throw new AppError("repository_exists", `${o.dest} already exists`, { path: o.dest });
    }
    throw e;
  }
}

/**
 * RR-1: registers a remote repository by cloning it into its managed path, with progress as
 * `repository.clone_progress` events. Clones into a temporary sibling and renames it into place
 * only after success, and writes the row and the sealed credential in one transaction: a failure
 * leaves neither a directory nor a row (SEC-3). The token is sealed before anything is stored
 * and reaches git only through the origin-bound helper (RR-2).
 */
export async function addRemoteRepository(
  deps: Pick<Deps, "store" | "git" | "bus" | "home" | "now" | "remote">,
  body: CreateRepositoryBody & { url: string },
): Promise<RepositoryRecord> {
  const id = remoteIdentity(deps, body.url, body.provider);
  const cred = body.credential;
  if (cred && /[\n\r\0]/.test(cred.token + (cred.username ?? "")))
    throw new AppError("invalid_request", "credential must not contain line breaks", { field: "credential" });
  // Seed 004 / RR-4: only GitHub has an executor route; every other provider refreshes with its
  // provider credential, so `executor` is refused for it and a credential is required.
  const executorAllowed = allowsExecutorPolicy(id.provider.id);
  if (body.credentialPolicy === "executor" && !executorAllowed) {
    throw new AppError(
      "invalid_request",
      `credentialPolicy executor is GitHub-only; ${id.provider.displayName} repositories refresh with their provider credential (give credential, policy managed)`,
      {
        field: "credentialPolicy",
        provider: id.provider.id,
      },
    );
  }
  const policy = body.credentialPolicy ?? (cred || !executorAllowed ? "managed" : "executor");
  if (policy === "managed" && !cred)
    throw new AppError("invalid_request", `${id.provider.displayName} repositories need a credential (credentialPolicy managed)`, { field: "credential" });
  const name = body.name ?? id.loc.name;
  if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith(".") || name.startsWith("-")) {
    throw new AppError("invalid_request", `repository name ${JSON.stringify(name)} may hold only letters, digits, '.', '_' and '-'`, { field: "name" });
  }
  if (body.defaultBranch !== undefined) assertBranchName(body.defaultBranch, "defaultBranch");
  if (body.sparseCheckout !== undefined) assertSparseDirs(body.sparseCheckout);
  const branchTemplate = body.branchTemplate ?? DEFAULT_BRANCH_TEMPLATE;
  renderBranchName(branchTemplate, { title: "probe", taskId: "task_probe", suffix: "abc123" });
  const existing = (await deps.store.listRepositories()).find((r) => r.path === id.expectedPath || r.name === name);
  if (existing)
    throw new AppError("repository_exists", `repository ${existing.name} (${existing.url ?? existing.path}) is already registered`, { id: existing.id });

  const apiUrl = body.apiUrl === undefined ? null : parseApiUrl(body.apiUrl);
  const repoId = newId("repo");
  const access: RemoteAccess =
    policy === "managed" && cred ? { kind: "managed", originUrl: id.managedUrl, credential: id.provider.credentialForm(cred) } : { kind: "executor" };
  await cloneManaged(deps, { identity: id, access, dest: id.expectedPath, repositoryId: repoId, name, tmpTag: repoId, ids: { repositoryId: repoId } });
  try {
    const info = await inspectRepository(deps.git, id.expectedPath);
    const defaultBranch = body.defaultBranch ?? info.defaultBranch;
    if (defaultBranch !== info.checkedOut && !(await branchExists(deps.git, info.path, defaultBranch))) {
      const remote = await deps.git.run(["show-ref", "--verify", "--quiet", `refs/remotes/origin/${defaultBranch}`], { cwd: info.path, okExitCodes: [1] });
      if (remote.exitCode !== 0)
        throw new AppError("base_branch_not_found", `branch ${defaultBranch} does not exist in ${body.url}`, { field: "defaultBranch" });
    }
    const now = deps.now();
    const rec: RepositoryRecord = {
      id: repoId,
      name,
      path: info.path,
      url: id.url.original,
      provider: id.provider.id,
      defaultBranch,
      // RR-5: a remote repository is refreshed before each new worktree unless told otherwise.
      pullBeforeWorktree: body.pullBeforeWorktree ?? true,
      credentialPolicy: policy,
      hasCredential: cred !== undefined,
      branchTemplate,
      copyFiles: [],
      sparseCheckout: body.sparseCheckout ?? [],
      setupScript: null,
      apiUrl,
      createdAt: now,
      updatedAt: now,
    };
    const sealed = cred ? sealSecret(credentialKey(deps), repoId, JSON.stringify({ token: cred.token, username: cred.username ?? null })) : null;
    await deps.store.transaction(async () => {
      await deps.store.insertRepository(rec);
      if (sealed) await deps.store.putCredential(repoId, sealed, credentialKeyIdOf(deps), now);
    });
    return rec;
  } catch (e) {
    await rm(id.expectedPath, { recursive: true, force: true });
    throw e;
  }
}
