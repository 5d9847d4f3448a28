import type { ConflictHunk, SendConflictsBody, TaskConflicts } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import type { SessionRecord } from "../../domain/records.js";
import { readConfinedText } from "../../git/file-lines.js";
import { backupRefs, conflictedPaths, operationInProgress } from "../../git/rebase.js";
import { workTreeOf } from "../../git/worktree-link.js";
import type { Deps, SessionPorts } from "../context.js";
import type { LiveSessions } from "../sessions/live-sessions.js";
import { getSessionOr404, promptSession } from "../sessions/session-ops.js";
import { notAttachedError, reviewSlots } from "./review-slot.js";

/** A hunk longer than this is cut in the prompt (the file itself is what the agent edits). */
const MAX_HUNK_LINES = 200;
/** The whole prompt stays below the prompt limit with room for the person's words. */
const MAX_PROMPT_CHARS = 400_000;

/** RV-8: the conflict regions of a file's text, `<<<<<<<` through `>>>>>>>`. */
export function conflictHunks(text: string): ConflictHunk[] {
  const lines = text.split("\n");
  const hunks: ConflictHunk[] = [];
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (start < 0 && /^<{7}( |$)/.test(line)) start = i;
    else if (start >= 0 && /^>{7}( |$)/.test(line)) {
      hunks.push({ startLine: start + 1, endLine: i + 1, text: lines.slice(start, i + 1).join("\n") });
      start = -1;
    }
  }
  return hunks;
}

/**
 * `GET /tasks/:id/conflicts` (RV-8): per repository with a stopped rebase/merge, the conflicted
 * files (unmerged in the index) and the regions that still hold markers; a file without any is
 * `resolved` (it is staged by continue). Read-only; git runs pinned (SBX-4).
 */
export async function listConflicts(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "remote">,
  taskId: string,
  repositoryId?: string,
): Promise<TaskConflicts> {
  const slots = await reviewSlots(deps, taskId, repositoryId, notAttachedError());
  const repositories: TaskConflicts["repositories"] = [];
  for (const slot of slots) {
    const operation = await operationInProgress(deps.git, slot.worktree);
    if (!operation) continue;
    const files: TaskConflicts["repositories"][number]["files"] = [];
    for (const path of await conflictedPaths(deps.git, slot.worktree)) {
      // SEC-2 / SBX-4.7: the agent's file: confined to the worktree, a regular file, never blocking.
      const text = (await readConfinedText(workTreeOf(slot.worktree), path)) ?? "";
      const hunks = conflictHunks(text);
      files.push({ path, resolved: hunks.length === 0, hunks });
    }
    const backupRef = (await backupRefs(deps.git, slot.worktree, taskId)).pop() ?? null;
    repositories.push({ repositoryId: slot.repository.id, operation, backupRef, files });
  }
  return { taskId, repositories };
}

/**
 * `POST /tasks/:id/conflicts/send {sessionId, repositoryId?, prompt?}` (RV-8): one prompt to a
 * session of the task with every unresolved hunk, each line quoted with `> ` so an agent that
 * reads line by line (the scripted one) never takes one for a command; then the person's words.
 * The agent is asked to edit the files only: the person continues (or aborts) the update.
 */
export async function sendConflicts(deps: SessionPorts, live: LiveSessions, taskId: string, body: SendConflictsBody): Promise<SessionRecord> {
  const session = await getSessionOr404(deps, body.sessionId);
  if (session.taskId !== taskId) throw new AppError("invalid_request", `session ${body.sessionId} is not a session of task ${taskId}`, { field: "sessionId" });
  const conflicts = await listConflicts(deps, taskId, body.repositoryId);
  const open = conflicts.repositories.flatMap((r) =>
    r.files.filter((f) => !f.resolved).map((f) => ({ repositoryId: r.repositoryId, operation: r.operation, file: f })),
  );
  if (open.length === 0)
    throw new AppError("update_not_in_progress", `task ${taskId} has no unresolved conflicts to send`, {
      taskId,
      ...(body.repositoryId ? { repositoryId: body.repositoryId } : {}),
    });
  const names = new Map((await deps.store.listRepositories()).map((r) => [r.id, r.name] as const));
  const parts = [
    "Updating the branch from its base stopped on conflicts. Resolve each conflict below in the file: keep what both sides meant and remove every conflict marker line.",
    "Edit the files only: do not commit, stage, or run git rebase/merge --continue or --abort; the person continues the update.",
  ];
  let size = parts.join("\n").length;
  for (const { repositoryId, operation, file } of open) {
    for (const h of file.hunks) {
      const lines = h.text.split("\n");
      const shown = lines.slice(0, MAX_HUNK_LINES).map((l) => `> ${l}`);
      if (lines.length > MAX_HUNK_LINES) shown.push(`> … ${lines.length - MAX_HUNK_LINES} more lines in the file`);
      const block = [`Conflict (${operation}) in ${names.get(repositoryId) ?? repositoryId}: ${file.path}, lines ${h.startLine}-${h.endLine}:`, ...shown].join(
        "\n",
      );
      if (size + block.length > MAX_PROMPT_CHARS) {
        parts.push("More conflicts are in the files; look for conflict markers.");
        size = MAX_PROMPT_CHARS;
        break;
      }
      parts.push(block);
      size += block.length;
    }
    if (size >= MAX_PROMPT_CHARS) break;
  }
  if (body.prompt?.trim()) parts.push(body.prompt);
  return promptSession(deps, live, body.sessionId, parts.join("\n"));
}
