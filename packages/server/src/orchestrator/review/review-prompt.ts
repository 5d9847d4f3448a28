import type { PromptBody } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import type { SessionRecord } from "../../domain/records.js";
import type { CommentRecord } from "../../domain/review.js";
import type { Deps, SessionPorts } from "../context.js";
import type { LiveSessions } from "../sessions/live-sessions.js";
import { currentLines, withOutdated } from "./review-comments.js";
import { reviewSlots } from "./review-slot.js";
import { getSessionOr404, promptSession } from "../sessions/session-ops.js";
import { faultPoint } from "../fault-points.js";

/** Lines of context quoted on each side of a commented line. */
const CONTEXT = 2;

/**
 * One comment as prompt text: repository and file, the line range quoted (the commented line
 * marked `>`), then the person's words. Every line starts with a label, a number or `>`, so an
 * agent reading commands line by line never mistakes a quoted line for an instruction.
 */
async function commentBlock(c: CommentRecord, index: number, repoName: string, lines: string[] | null, outdated: boolean): Promise<string> {
  const out: string[] = [];
  const from = Math.max(1, c.line - CONTEXT);
  const to = lines && !outdated ? Math.min(lines.length, c.line + CONTEXT) : c.line;
  out.push(
    `[${index}] ${repoName}/${c.path}, line ${c.line} (${c.side} side)${outdated ? " (outdated: the line changed since the comment)" : `, lines ${from}-${to}`}:`,
  );
  if (lines && !outdated) {
    for (let n = from; n <= to; n++) out.push(`${n === c.line ? ">" : " "} ${n} | ${lines[n - 1] ?? ""}`);
  } else {
    out.push(`> ${c.line} | ${c.lineText}`);
  }
  for (const l of c.body.split(/\r?\n/)) out.push(`Comment: ${l}`);
  return out.join("\n");
}

/** Composes the review comments (in the given order) into one prompt text. */
export async function composeCommentPrompt(
  deps: Pick<Deps, "store" | "git" | "worktrees" | "home" | "remote">,
  taskId: string,
  comments: CommentRecord[],
): Promise<string> {
  const views = await withOutdated(deps, taskId, comments);
  const blocks: string[] = [];
  for (const [i, c] of comments.entries()) {
    const repo = await deps.store.getRepository(c.repositoryId);
    const [slot] = await reviewSlots(deps, taskId, c.repositoryId, () => new AppError("not_found", "gone")).catch(() => []);
    const lines = slot ? (await currentLines(deps, slot, c.path, c.side).catch(() => ({ lines: null }))).lines : null;
    blocks.push(await commentBlock(c, i + 1, repo?.name ?? c.repositoryId, lines, views[i]?.outdated ?? true));
  }
  return [`Review comments (${comments.length}):`, ...blocks].join("\n\n");
}

/**
 * `POST /sessions/:id/prompt {prompt?, commentIds?}`: the comments are composed into one prompt
 * (plus the extra text), the turn is claimed like any prompt, and only then are the comments
 * marked `sent` with the session and turn (compare-and-set from open|sent): a refused prompt
 * (busy session) leaves them as they were.
 */
export async function promptWithComments(deps: SessionPorts, live: LiveSessions, sessionId: string, body: PromptBody): Promise<SessionRecord> {
  if (!body.commentIds) return promptSession(deps, live, sessionId, body.prompt ?? "");
  const session = await getSessionOr404(deps, sessionId);
  const comments: CommentRecord[] = [];
  for (const id of new Set(body.commentIds)) {
    const c = await deps.store.review.getComment(id);
    if (!c || c.taskId !== session.taskId)
      throw new AppError("invalid_request", `comment ${id} is not a comment of this session's task`, { field: "commentIds", commentId: id });
    if (c.state === "resolved") throw new AppError("comment_resolved", `comment ${id} is resolved; reopen it to send it`, { commentId: id });
    comments.push(c);
  }
  const composed = await composeCommentPrompt(deps, session.taskId, comments);
  const text = body.prompt ? `${composed}\n\n${body.prompt}` : composed;
  const turn = (await deps.store.listMessages(sessionId)).filter((m) => m.role === "user").length + 1;
  const result = await promptSession(deps, live, sessionId, text);
  if (result.state === "failed") return result;
  await faultPoint("comments.after_prompt");
  for (const c of comments) {
    const sent = await deps.store.review.updateCommentIf(c.id, ["open", "sent"], { state: "sent", sessionId, sentTurn: turn }, deps.now());
    if (sent) deps.bus.publish("comment.updated", { comment: (await withOutdated(deps, sent.taskId, [sent]))[0]! });
  }
  return result;
}
