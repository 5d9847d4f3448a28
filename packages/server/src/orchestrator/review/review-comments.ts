import type { Comment, CreateCommentBody, PatchCommentBody } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import { commentView, type CommentRecord } from "../../domain/review.js";
import { headCommit, linesOnSide } from "../../git/file-lines.js";
import { mergeBaseOf } from "../../git/merge-base.js";
import { confinePath } from "../changes/changes.js";
import type { Deps } from "../context.js";
import { reviewSlot, reviewSlots, type ReviewSlot } from "./review-slot.js";
import { getTaskOr404 } from "../tasks/tasks.js";

function anchorError(message: string, field: string, details: Record<string, unknown> = {}): AppError {
  return new AppError("comment_anchor_invalid", message, { field, ...details });
}

/** The lines of a comment's file on its side as they are now (null: the file is gone). */
export async function currentLines(
  deps: Pick<Deps, "git">,
  slot: ReviewSlot,
  path: string,
  side: "new" | "old",
): Promise<{ lines: string[] | null; commit: string | null }> {
  if (side === "new")
    return { lines: await linesOnSide(deps.git, { worktreePath: slot.worktree, path, side, commit: null }), commit: await headCommit(deps.git, slot.worktree) };
  const base = await mergeBaseOf(deps.git, slot.worktree, slot.baseRef);
  return { lines: await linesOnSide(deps.git, { worktreePath: slot.worktree, path, side, commit: base }), commit: base };
}

/** The ports (orchestrator/context.ts) createComment uses. */
export type CreateCommentPorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "home" | "now" | "remote">;

/**
 * `POST /tasks/:id/comments`: anchors the comment to the line as it is now — the worktree's
 * file for side `new`, the merge-base's for side `old` — and keeps the line's text, so a later
 * edit of that line shows the comment as outdated instead of silently moving it.
 */
export async function createComment(deps: CreateCommentPorts, taskId: string, body: CreateCommentBody): Promise<Comment> {
  const side = body.side ?? "new";
  const slot = await reviewSlot(deps, taskId, body.repositoryId, (id) =>
    anchorError(`repository ${id} is not a repository of task ${taskId}`, "repositoryId", { repositoryId: id }),
  );
  const path = await confinePath(slot.worktreePath, body.path);
  const { lines, commit } = await currentLines(deps, slot, path, side);
  if (lines === null || commit === null)
    throw anchorError(`${path} does not exist on the ${side} side of repository ${slot.repository.name}`, "path", { path, side });
  if (body.line > lines.length)
    throw anchorError(`${path} has ${lines.length} lines on the ${side} side; line ${body.line} is past the end`, "line", { path, side, lines: lines.length });
  const now = deps.now();
  const rec: CommentRecord = {
    id: newId("cmt"),
    taskId,
    repositoryId: slot.repository.id,
    path,
    line: body.line,
    side,
    body: body.body,
    state: "open",
    commit,
    lineText: lines[body.line - 1]!,
    sessionId: null,
    sentTurn: null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.store.review.insertComment(rec);
  const view = commentView(rec, false);
  deps.bus.publish("comment.created", { comment: view });
  return view;
}

/** Comments with `outdated` computed against the files as they are now (one read per file and side). */
export async function withOutdated(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "remote">,
  taskId: string,
  records: CommentRecord[],
): Promise<Comment[]> {
  const slots = new Map<string, ReviewSlot | null>();
  const files = new Map<string, string[] | null>();
  const out: Comment[] = [];
  for (const c of records) {
    if (!slots.has(c.repositoryId)) {
      const found = await reviewSlots(deps, taskId, c.repositoryId, () => new AppError("not_found", "gone")).catch(() => []);
      slots.set(c.repositoryId, found[0] ?? null);
    }
    const slot = slots.get(c.repositoryId) ?? null;
    // Without a worktree (archived task) the anchor cannot be checked: shown as it was.
    if (!slot) {
      out.push(commentView(c, false));
      continue;
    }
    const key = `${c.repositoryId}\0${c.side}\0${c.path}`;
    if (!files.has(key)) files.set(key, (await currentLines(deps, slot, c.path, c.side).catch(() => ({ lines: null }))).lines);
    const lines = files.get(key) ?? null;
    out.push(commentView(c, lines === null || lines[c.line - 1] !== c.lineText));
  }
  return out;
}

export async function listComments(deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "remote">, taskId: string): Promise<Comment[]> {
  await getTaskOr404(deps, taskId);
  return withOutdated(deps, taskId, await deps.store.review.listComments(taskId));
}

async function getCommentOr404(deps: Pick<Deps, "store">, id: string): Promise<CommentRecord> {
  const c = await deps.store.review.getComment(id);
  if (!c) throw new AppError("not_found", `comment ${id} not found`, { id });
  return c;
}

/** `PATCH /comments/:id`: edit the words, resolve, or reopen (compare-and-set on the state read). */
export async function patchComment(deps: CreateCommentPorts, id: string, body: PatchCommentBody): Promise<Comment> {
  const c = await getCommentOr404(deps, id);
  const updated = await deps.store.review.updateCommentIf(
    id,
    [c.state],
    { ...(body.body !== undefined && { body: body.body }), ...(body.state !== undefined && { state: body.state }) },
    deps.now(),
  );
  if (!updated) throw new AppError("not_found", `comment ${id} changed or was deleted meanwhile; read it again`, { id });
  const [view] = await withOutdated(deps, updated.taskId, [updated]);
  deps.bus.publish("comment.updated", { comment: view! });
  return view!;
}

export async function deleteComment(deps: Pick<Deps, "store" | "bus">, id: string): Promise<void> {
  const c = await getCommentOr404(deps, id);
  if (await deps.store.review.deleteComment(id)) deps.bus.publish("comment.deleted", { commentId: id, taskId: c.taskId });
}
