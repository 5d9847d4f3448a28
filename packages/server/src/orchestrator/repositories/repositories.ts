import { basename } from "node:path";
import type { CreateRepositoryBody } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import { DEFAULT_BRANCH_TEMPLATE, assertBranchName, renderBranchName } from "../../domain/layout.js";
import type { RepositoryRecord } from "../../domain/records.js";
import { assertSparseDirs } from "../../domain/sparse-checkout.js";
import { branchExists, inspectRepository } from "../../git/repository.js";
import type { Deps } from "../context.js";
import { assertCopyGlobs } from "./repository-settings.js";
import { addRemoteRepository } from "../refresh/remote-repositories.js";
import { assertNotInTaskWorktrees, assertRegistrablePath } from "./repository-path-guard.js";

/** The ports (orchestrator/context.ts) addRepository uses. */
export type AddRepositoryPorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "home" | "now" | "remote" | "pool">;

/**
 * Registers a repository (RR-1). A local checkout is the person's own: validated, never
 * re-cloned or re-pointed. Nothing is written unless every check passed (SEC-3).
 */
export async function addRepository(deps: AddRepositoryPorts, body: CreateRepositoryBody): Promise<RepositoryRecord> {
  // RR-1: a remote URL is cloned into its managed path (remote-repositories.ts).
  if (body.url !== undefined) return addRemoteRepository(deps, { ...body, url: body.url });
  if (body.path === undefined) throw new AppError("invalid_request", "give exactly one of path or url", { field: "path" });
  if (body.apiUrl !== undefined) throw new AppError("invalid_request", "apiUrl applies to remote repositories only", { field: "apiUrl" });
  if (body.credential || body.credentialPolicy === "managed") {
    throw new AppError("invalid_request", "credentials apply to remote repositories only", { field: "credential" });
  }
  await assertNotInTaskWorktrees(deps, body.path);
  const info = await inspectRepository(deps.git, body.path);
  await assertRegistrablePath(deps, info);
  const name = body.name ?? basename(info.path);
  if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith(".") || name.startsWith("-")) {
    throw new AppError("invalid_request", `repository name ${JSON.stringify(name)} may hold only letters, digits, '.', '_' and '-'`, { field: "name" });
  }
  const defaultBranch = body.defaultBranch ?? info.defaultBranch;
  assertBranchName(defaultBranch, "defaultBranch");
  // The checked-out branch exists (inspectRepository saw HEAD name a commit on it).
  if (defaultBranch !== info.checkedOut && !(await branchExists(deps.git, info.path, defaultBranch))) {
    throw new AppError("base_branch_not_found", `branch ${defaultBranch} does not exist in ${info.path}`, { field: "defaultBranch" });
  }
  const branchTemplate = body.branchTemplate ?? DEFAULT_BRANCH_TEMPLATE;
  renderBranchName(branchTemplate, { title: "probe", taskId: "task_probe", suffix: "abc123" });
  if (body.copyFiles !== undefined) assertCopyGlobs(body.copyFiles);
  if (body.sparseCheckout !== undefined) assertSparseDirs(body.sparseCheckout);
  const existing = (await deps.store.listRepositories()).find((r) => r.path === info.path || r.name === name);
  if (existing) {
    throw new AppError("repository_exists", `repository ${existing.name} (${existing.path}) is already registered`, { id: existing.id });
  }
  const now = deps.now();
  const rec: RepositoryRecord = {
    id: newId("repo"),
    name,
    path: info.path,
    url: null,
    provider: "local",
    defaultBranch,
    // A local checkout's origin is refreshed only when asked (WT-3; default off: no network).
    pullBeforeWorktree: body.pullBeforeWorktree ?? false,
    credentialPolicy: "executor",
    hasCredential: false,
    branchTemplate,
    copyFiles: body.copyFiles ?? [],
    sparseCheckout: body.sparseCheckout ?? [],
    setupScript: body.setupScript ?? null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.store.insertRepository(rec);
  // WT-10: the pool of its default branch starts filling in the background.
  deps.pool?.refill(rec.id, rec.path, rec.defaultBranch);
  return rec;
}

export async function getRepositoryOr404(deps: Pick<Deps, "store">, id: string): Promise<RepositoryRecord> {
  const r = await deps.store.getRepository(id);
  if (!r) throw new AppError("not_found", `repository ${id} not found`, { id });
  return r;
}
