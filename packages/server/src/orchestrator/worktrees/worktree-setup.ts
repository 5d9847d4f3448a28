import { runSetupScript } from "../../git/setup-script.js";
import { DEFAULT_TUNING } from "../../config.js";
import type { Deps } from "../context.js";
import type { PlannedSlot, RefreshContext } from "../planned-slot.js";
import { copyIntoWorktree } from "./worktree-copy.js";
import { warnOnSession } from "./session-warning.js";

function warn(deps: Pick<Deps, "store" | "bus" | "log" | "now">, ctx: RefreshContext, text: string, data: Record<string, unknown>): Promise<void> {
  return warnOnSession(deps, ctx, text, data, "setup warning");
}

/**
 * WT-9, run once right after a NEW worktree was created and persisted (never on reuse or on
 * a WT-5 recreation): copy the repository's copy-files globs from the source checkout, then
 * run its setup script in the worktree. Neither can fail the launch: problems become a
 * warning message on the launching session and a log line.
 */
export async function setupNewWorktree(deps: Pick<Deps, "store" | "bus" | "log" | "now" | "tuning">, slot: PlannedSlot, ctx: RefreshContext): Promise<void> {
  const repo = slot.repository;
  try {
    const report = await copyIntoWorktree(repo.path, slot.worktreePath, repo.copyFiles);
    if (report.skipped.length > 0) {
      await warn(deps, ctx, `${repo.name}: some copy-files matches were not copied:\n${report.skipped.join("\n")}`, {
        repositoryId: repo.id,
        kind: "copy_files",
      });
    }
  } catch (e) {
    deps.log.warn({ err: e, repositoryId: repo.id }, "copy-files failed");
    await warn(deps, ctx, `${repo.name}: copying files into the worktree failed: ${(e as Error).message}`, { repositoryId: repo.id, kind: "copy_files" });
  }
  if (!repo.setupScript) return;
  const r = await runSetupScript({
    script: repo.setupScript,
    cwd: slot.worktreePath,
    env: { GROVE_SOURCE_PATH: repo.path, GROVE_WORKTREE_PATH: slot.worktreePath, GROVE_TASK_ID: ctx.taskId },
    timeoutMs: (deps.tuning ?? DEFAULT_TUNING).setupScriptTimeoutMs,
  });
  if (!r.ok) {
    deps.log.warn({ repositoryId: repo.id, exitCode: r.exitCode, timedOut: r.timedOut }, "setup script failed");
    const why = r.timedOut ? "timed out" : `exited with ${r.exitCode ?? "no code"}`;
    await warn(deps, ctx, `${repo.name}: the setup script ${why}; the worktree is ready anyway.\n${r.output}`.trimEnd(), {
      repositoryId: repo.id,
      kind: "setup_script",
      exitCode: r.exitCode,
    });
  }
}
