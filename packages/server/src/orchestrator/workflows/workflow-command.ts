import { existsSync } from "node:fs";
import { join } from "node:path";
import { detachedResult, detachedStartedAt, killDetached, startDetached } from "../../agents/detached-command.js";
import { isAppError } from "../../domain/errors.js";
import type { TaskRecord } from "../../domain/records.js";
import type { RunCommandAction } from "../../domain/workflow.js";
import type { CommandResult, WorkflowRunRecord } from "../../domain/workflow-run.js";
import type { Deps } from "../context.js";
import { faultPoint } from "../fault-points.js";
import { currentProfile } from "../sessions/current-profile.js";
import { commandLaunch } from "../sessions/sandbox-launch.js";
import { projectSessionWorkspace } from "../worktrees/workspace.js";

/** How often a command's end is looked for (its `exit` file). */
const POLL_MS = 250;

/** After the timeout (which `timeout -k 5` enforces), how long a command's result may still take to appear. */
const GRACE_MS = 30_000;

/**
 * Where a run's command keeps its state (claim, pid, output, exit code): under GROVE_HOME,
 * never in the worktree the command works on.
 */
export function commandDir(deps: Pick<Deps, "home">, runId: string): string {
  return join(deps.home, "workflow-runs", runId);
}

/** A run's command under way: its result once it ends. */
export type StartedCommand = { state: "command"; done: Promise<CommandResult> } | { state: "skipped" | "failed"; outcome: string };

/** The ports (orchestrator/context.ts) startCommand uses. */
export type StartCommandPorts = Pick<Deps, "store" | "git" | "worktrees" | "profiles" | "log" | "home" | "remote" | "sandbox">;

/**
 * WF-2.13: starts a `run` action's command in the task's workspace, confined like the working
 * session's agent. The command is a detached job keyed by the run (see agents/detached-command.ts):
 * it outlives a crash of this process, and a redo after a crash finds it started and waits for
 * the same result instead of running it a second time.
 */
export async function startCommand(
  deps: StartCommandPorts,
  run: WorkflowRunRecord,
  task: TaskRecord,
  a: RunCommandAction,
  working: (taskId: string) => Promise<{ id: string } | undefined>,
): Promise<StartedCommand> {
  const dir = commandDir(deps, run.id);
  let close = async (): Promise<void> => undefined;
  if (detachedStartedAt(dir) === undefined) {
    const target = await working(task.id);
    const session = target && (await deps.store.getSession(target.id));
    if (!session) return { state: "skipped", outcome: "the task has no session: no workspace to run the command in" };
    try {
      const ws = await projectSessionWorkspace(deps, session);
      if (!existsSync(ws.workspacePath)) return { state: "failed", outcome: `workspace_missing: the task's workspace ${ws.workspacePath} is not on disk` };
      const launch = await commandLaunch(deps, session, await currentProfile(deps, session.agent), ws.workspacePath, a.command, (hostPort) =>
        deps.log.info({ taskId: task.id, runId: run.id, hostPort }, "sandbox blocked a connection of a workflow command"),
      );
      close = launch.close;
      try {
        await startDetached({
          dir,
          command: launch.command,
          args: launch.args,
          cwd: ws.workspacePath,
          env: launch.env,
          inheritEnv: launch.inheritEnv,
          timeoutSeconds: a.timeoutSeconds,
        });
      } catch (e) {
        await close();
        throw e;
      }
    } catch (e) {
      if (isAppError(e)) return { state: "failed", outcome: `${e.code}: ${e.message}` };
      throw e;
    }
    await faultPoint("workflow.after_command_start");
  }
  return { state: "command", done: waitForResult(dir, a.timeoutSeconds).finally(close) };
}

/** WF-2.13: a cancelled run's command is killed (its whole process group). */
export function stopCommand(deps: Pick<Deps, "home">, runId: string): void {
  killDetached(commandDir(deps, runId));
}

/** The run's outcome line for a command's result. */
export function commandOutcome(r: CommandResult, timeoutSeconds: number): string {
  if (r.timedOut) return `timed out after ${timeoutSeconds} s`;
  return r.exitCode === null ? "killed (no exit code)" : `exit ${r.exitCode}`;
}

/**
 * Polls for the command's end. Its claim (`started`) dates it: past its timeout and the grace,
 * a command with no result never will have one (the machine restarted under it).
 */
async function waitForResult(dir: string, timeoutSeconds: number): Promise<CommandResult> {
  const since = Date.now();
  for (;;) {
    const r = detachedResult(dir);
    if (r) return r;
    const started = detachedStartedAt(dir) ?? since;
    if (Date.now() > started + timeoutSeconds * 1000 + GRACE_MS)
      return { exitCode: null, timedOut: false, output: "the command's result was lost (its process went away without one)" };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
