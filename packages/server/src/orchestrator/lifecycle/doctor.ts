import { existsSync, readFileSync } from "node:fs";
import { readdir, realpath } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import type { DoctorFinding, DoctorReport } from "@grove/protocol";
import type { WorktreeEntry } from "../../git/worktrees.js";
import type { Deps } from "../context.js";
import { TASK_MARKER } from "../worktrees/paths.js";
import { reviewFindings } from "./review-doctor.js";
import { isRemoteRepository } from "../refresh/refresh-routes.js";
import { repositoryOnThisRunner, repositoryPathOnThisRunner } from "../refresh/repository-on-runner.js";

async function norm(p: string): Promise<string> {
  return realpath(p).catch(() => resolve(p));
}

function markerTaskId(dir: string): string | undefined {
  try {
    const m = JSON.parse(readFileSync(join(dir, TASK_MARKER), "utf8")) as { taskId?: unknown };
    return typeof m.taskId === "string" ? m.taskId : undefined;
  } catch {
    return undefined;
  }
}

/** SBX-4: the link state of a row's worktree, read from the repository's admin dirs only. */
async function linkOf(
  deps: Pick<Deps, "worktrees">,
  repositories: readonly { id: string; path: string }[],
  repositoryId: string,
  worktreePath: string,
): Promise<string> {
  const repo = repositories.find((r) => r.id === repositoryId);
  if (!repo) return "unknown";
  return (await deps.worktrees.link({ repoPath: repo.path, worktreePath }).catch(() => ({ state: "unknown" }))).state;
}

/**
 * `GET /doctor` (`grove doctor`): a read-only audit of the three records of a worktree — the
 * environment rows, each repository's `git worktree list --porcelain`, and the task directories
 * under `$GROVE_HOME/tasks` (with their `.grove-task.json` marker). Reports:
 * - `missing`: an active row whose directory is gone;
 * - `unregistered`: an active row's directory exists but git does not list it as a worktree;
 * - `mismatch`: git lists it for another repository or on another branch than the row says;
 * - `tampered`: a row's worktree whose `.git` no longer points at its recorded git dir (SBX-4,
 *   `workspace_tampered`: nothing runs there until `grove task restore` writes the link back);
 * - `orphan`: a directory (or a git registration) under the tasks directory that no active row
 *   claims, or a task directory whose task does not exist.
 * Never changes anything: no git mutation, no file written or removed.
 */
export async function runDoctor(deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "runnerId" | "remote">): Promise<DoctorReport> {
  const findings: DoctorFinding[] = [];
  const tasksDir = await norm(join(deps.home, "tasks"));
  // Only this runner's environments and repositories are on this disk; the others are skipped, not judged.
  const all = await deps.store.listTaskInventory();
  const inventory = all.filter((t) => !t.environment || t.environment.runnerId === deps.runnerId);
  const skipped = all
    .filter((t) => t.environment && t.environment.runnerId !== deps.runnerId)
    .map((t) => ({ taskId: t.taskId, runnerId: t.environment!.runnerId }));
  const every = await deps.store.listRepositories();
  const holders = await deps.store.placement.repositoryRunners(every.map((r) => r.id));
  // A remote repository is also audited where this runner made its own clone, at that path.
  const repositories = every
    .filter((r) => (holders.get(r.id) ?? deps.runnerId) === deps.runnerId || (isRemoteRepository(r) && existsSync(repositoryPathOnThisRunner(deps, r))))
    .map((r) => repositoryOnThisRunner(deps, r));

  const registered = new Map<string, { entry: WorktreeEntry; repositoryId: string }>();
  for (const repo of repositories) {
    let entries: WorktreeEntry[];
    try {
      entries = await deps.worktrees.list(repo.path);
    } catch (e) {
      findings.push({
        kind: "missing",
        path: repo.path,
        repositoryId: repo.id,
        message: `repository ${repo.name} cannot be read: ${e instanceof Error ? e.message : String(e)}`,
      });
      continue;
    }
    const main = await norm(repo.path);
    for (const entry of entries) {
      const p = await norm(entry.path);
      if (p !== main) registered.set(p, { entry, repositoryId: repo.id });
    }
  }

  const claimed = new Set<string>();
  let rowCount = 0;
  for (const task of inventory) {
    for (const row of task.rows) {
      if (row.status !== "active" || !row.worktreePath) continue;
      rowCount += 1;
      const path = await norm(row.worktreePath);
      claimed.add(path);
      const reg = registered.get(path);
      const base = { path: row.worktreePath, taskId: task.taskId, repositoryId: row.repositoryId };
      if (!existsSync(path)) {
        findings.push({
          ...base,
          kind: "missing",
          message: `row of task ${task.taskId} names ${row.worktreePath}, which does not exist${reg ? " (git still lists it)" : ""}`,
        });
      } else if (!reg) {
        findings.push({ ...base, kind: "unregistered", message: `${row.worktreePath} exists but no repository lists it as a worktree` });
      } else if (reg.repositoryId !== row.repositoryId) {
        findings.push({
          ...base,
          kind: "mismatch",
          expected: row.repositoryId,
          actual: reg.repositoryId,
          message: `${row.worktreePath} is a worktree of repository ${reg.repositoryId}, the row says ${row.repositoryId}`,
        });
      } else if ((await linkOf(deps, repositories, row.repositoryId, row.worktreePath)) === "tampered") {
        findings.push({
          ...base,
          kind: "tampered",
          message: `${row.worktreePath}: its .git no longer points at the git dir recorded for it (workspace_tampered); run \`grove task restore ${task.taskId}\``,
        });
      } else if (reg.entry.branch !== row.worktreeBranch) {
        findings.push({
          ...base,
          kind: "mismatch",
          expected: row.worktreeBranch ?? "",
          actual: reg.entry.branch ?? "(detached)",
          message: `${row.worktreePath} is on ${reg.entry.branch ?? "a detached HEAD"}, the row says ${row.worktreeBranch}`,
        });
      }
    }
  }

  const byDir = new Map(inventory.map((t) => [t.dirName, t]));
  const byId = new Map(inventory.map((t) => [t.taskId, t]));
  const reported = new Set<string>();
  let taskDirs = 0;
  const dirs = existsSync(tasksDir) ? await readdir(tasksDir, { withFileTypes: true }) : [];
  for (const d of dirs) {
    if (!d.isDirectory()) continue;
    taskDirs += 1;
    const dir = join(tasksDir, d.name);
    const markerId = markerTaskId(dir);
    const task = byDir.get(d.name) ?? (markerId ? byId.get(markerId) : undefined);
    if (!task) {
      reported.add(dir);
      findings.push({
        kind: "orphan",
        path: dir,
        ...(markerId ? { taskId: markerId } : {}),
        message: `task directory ${d.name} belongs to no task${markerId ? ` (its marker names ${markerId})` : ""}`,
      });
      continue;
    }
    for (const sub of await readdir(dir, { withFileTypes: true })) {
      if (sub.name === TASK_MARKER) continue;
      const p = join(dir, sub.name);
      if (claimed.has(p)) continue;
      reported.add(p);
      findings.push({ kind: "orphan", path: p, taskId: task.taskId, message: `${p} is in the directory of task ${task.taskId} but no active row claims it` });
    }
  }
  for (const [path, reg] of registered) {
    if (!path.startsWith(tasksDir + sep) || claimed.has(path) || reported.has(path) || [...reported].some((r) => path.startsWith(r + sep))) continue;
    findings.push({
      kind: "orphan",
      path,
      repositoryId: reg.repositoryId,
      message: `git lists ${path} as a worktree but no active row claims it${existsSync(path) ? "" : " (its directory is gone)"}`,
    });
  }

  findings.push(...(await reviewFindings(deps, inventory)));
  return {
    ok: findings.length === 0,
    checked: { environmentRows: rowCount, repositories: repositories.length, taskDirectories: taskDirs },
    findings,
    ...(skipped.length ? { skipped } : {}),
  };
}
