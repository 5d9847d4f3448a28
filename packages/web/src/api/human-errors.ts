/**
 * API error codes in the person's words, each with the action that fixes it. The page shows
 * `text`, offers `action` as a button where the screen can perform it, and keeps the raw
 * `code: message` in a smaller line for bug reports. Unknown codes fall back to the server's
 * message, so a new code is never hidden.
 */
import { ApiError } from "./client.js";

/** Something the page can do about an error; the screen that shows the error wires it up. */
export type FixAction =
  | "discard_and_delete"
  | "restore"
  | "unarchive"
  | "cancel_turn"
  | "resume"
  | "retry"
  | "add_repository"
  | "back_to_board"
  | "autostash"
  | "keep_conflicts"
  | "open_conflicts";

/**
 * The operation an error answered: one code means different things (and has different fixes)
 * per operation — uncommitted changes block a delete for another reason than an update.
 */
export type Operation = "delete" | "update_from_base" | "merge" | "commit" | "continue_update" | "abort_update" | "create_workflow";

export interface HumanError {
  text: string;
  action?: { kind: FixAction; label: string };
  /** A page of this site where the person fixes it (shown as a link, whatever the screen). */
  link?: { href: string; label: string };
  code: string;
  raw: string;
}

type Entry = { text: string; action?: { kind: FixAction; label: string }; link?: { href: string; label: string } };

const WORDS: Record<string, Entry> = {
  dirty_worktree: { text: "This task's worktree has uncommitted changes." },
  session_busy: {
    text: "The agent is still working on the last message. Wait for the turn to end, or cancel it.",
    action: { kind: "cancel_turn", label: "Cancel the turn" },
  },
  session_running: { text: "A session is running. Cancel its turn first.", action: { kind: "cancel_turn", label: "Cancel the turn" } },
  session_not_resumable: {
    text: "This session has ended and cannot take messages. Resume it or start a new session.",
    action: { kind: "resume", label: "Resume" },
  },
  task_archived: { text: "This task is archived. Unarchive it to work on it again.", action: { kind: "unarchive", label: "Unarchive" } },
  task_cleanup_in_progress: { text: "The task is being cleaned up (archive or delete in progress). Try again when it has finished." },
  workspace_preparing: { text: "The task's worktrees are still being created. Try again in a moment.", action: { kind: "retry", label: "Try again" } },
  workspace_reuse_unsafe: {
    text: "A worktree of this task is not what Grove recorded (moved, switched branch or replaced). Fix or remove that directory, then try again.",
  },
  workspace_missing: { text: "This task's worktree is missing. Restore it to go on.", action: { kind: "restore", label: "Restore worktree" } },
  branch_unrecoverable: { text: "Both the worktree and its branch are gone, so there is nothing to restore from." },
  branch_exists: { text: "The branch this task would create already exists. Rename the task or delete that branch." },
  base_branch_not_found: { text: "That base branch does not exist in the repository. Check its name." },
  path_not_found: { text: "Nothing exists at that path on the server's machine. Check the path." },
  not_a_git_repository: { text: "That folder is not the top of a git repository." },
  repository_exists: { text: "This repository is already added." },
  repository_in_use: { text: "Tasks still refer to this repository (archived ones too). Delete those tasks first, then remove it." },
  not_found: { text: "This item does not exist (any more).", action: { kind: "back_to_board", label: "Back to the board" } },
  unauthorized: { text: "The server needs its access token. Open the page once with the link the server printed (…/?token=…)." },
  agent_unknown: { text: "That agent is not configured on the server." },
  agent_unavailable: { text: "That agent is not installed on the server." },
  agent_start_failed: { text: "The agent could not be started. Check its command in agents.json, then resume.", action: { kind: "resume", label: "Resume" } },
  agent_crashed: { text: "The agent stopped unexpectedly during its turn. Resume to go on.", action: { kind: "resume", label: "Resume" } },
  merge_conflict: { text: "The branch conflicts with its base. Resolve the conflicts (or ask the agent to), then try again." },
  base_checkout_dirty: { text: "Your own checkout of the base branch has uncommitted changes, so nothing was merged. Commit or stash them there first." },
  // WEB-49.5: the fix the person can make right here first (Settings → Editor), the server's variable second.
  editor_not_configured: {
    text: "No editor is configured. Set one in Settings → Editor (for example code), or start the server with GROVE_EDITOR set (for example GROVE_EDITOR=code).",
    link: { href: "/settings#settings-editor", label: "Settings → Editor" },
  },
  workflow_version_conflict: {
    text: "This workflow was changed meanwhile (in another tab or with grove workflow apply). Reload the page to edit its newest version.",
  },
  terminal_unavailable: { text: "The terminal needs the task's worktree. Start a session (or restore the worktree) first." },
  invalid_request: { text: "Some input was not accepted." },
  unsupported_media_type: { text: "The page sent a request the server does not accept. Reload the page.", action: { kind: "retry", label: "Reload" } },
};

/** RV-7: words that depend on the operation, checked before the global ones. */
const BY_OPERATION: Partial<Record<Operation, Record<string, Entry>>> = {
  delete: {
    dirty_worktree: {
      text: "This task has uncommitted changes. Delete anyway (discards them)?",
      action: { kind: "discard_and_delete", label: "Delete anyway (discard changes)" },
    },
  },
  update_from_base: {
    dirty_worktree: {
      text: "The worktree has uncommitted changes, so the update did not start. Grove can stash them, update, and put them back.",
      action: { kind: "autostash", label: "Update with autostash" },
    },
    merge_conflict: {
      text: "Updating from the base stops on conflicts, so nothing changed. Keep the conflicts to resolve them here or with the agent.",
      action: { kind: "keep_conflicts", label: "Update and keep the conflicts" },
    },
    update_in_progress: {
      text: "An update from base is stopped on conflicts. Resolve them, then continue — or abort it.",
      action: { kind: "open_conflicts", label: "Show the conflicts" },
    },
  },
  merge: {
    merge_conflict: { text: "The branch conflicts with its base, so nothing was merged. Update from base first and resolve the conflicts there." },
    dirty_worktree: { text: "The worktree has uncommitted changes. Commit them before merging." },
  },
  commit: {
    update_in_progress: {
      text: "An update from base is stopped on conflicts. Continue or abort it before committing.",
      action: { kind: "open_conflicts", label: "Show the conflicts" },
    },
  },
  create_workflow: {
    workflow_version_conflict: { text: "A workflow with this name exists already, so nothing was copied. Choose another name." },
  },
  continue_update: {
    conflicts_unresolved: { text: "Some files still hold conflict markers (<<<<<<<). Resolve them, or keep a side, then continue." },
  },
};

/** The person's words for any thrown value; `operation` picks the words of what was tried. */
export function humanError(e: unknown, operation?: Operation): HumanError {
  if (e instanceof ApiError) {
    const entry = (operation && BY_OPERATION[operation]?.[e.code]) ?? WORDS[e.code];
    // AG-3: an agent that failed to start says why on its stderr (`details.stderr`).
    const stderr = typeof e.details?.stderr === "string" && e.details.stderr.trim() !== "" ? `\nagent stderr:\n${e.details.stderr.trimEnd()}` : "";
    const raw = e.toString() + stderr;
    if (!entry) return { text: e.message, code: e.code, raw };
    // The server's message often starts with the field already ("path: …"): name it once.
    const f = e.details?.field;
    const field = e.code === "invalid_request" && typeof f === "string" ? ` (${e.message.startsWith(`${f}: `) ? e.message : `${f}: ${e.message}`})` : "";
    // The command that installs a missing agent, from details.fix.
    const fix = e.code === "agent_unavailable" && typeof e.details?.fix === "string" ? ` On the server's machine, run: ${e.details.fix}` : "";
    return { ...entry, text: entry.text + field + fix, code: e.code, raw };
  }
  const msg = (e as Error)?.message ?? String(e);
  return {
    text: "The server cannot be reached. Check that it is running; the page reconnects by itself.",
    code: "network_error",
    raw: `network_error: ${msg}`,
  };
}
