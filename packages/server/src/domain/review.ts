import type { Comment, PullRequest } from "@grove/protocol";

/** Records (docs/specs/review.md). */

export type CommentState = "open" | "sent" | "resolved";
export type CommentSide = "new" | "old";

/** A review comment as stored: the anchor, the line's text at the time, and where it was sent. */
export interface CommentRecord {
  id: string;
  taskId: string;
  repositoryId: string;
  path: string;
  line: number;
  side: CommentSide;
  body: string;
  state: CommentState;
  commit: string;
  lineText: string;
  sessionId: string | null;
  sentTurn: number | null;
  createdAt: string;
  updatedAt: string;
}

export type PullRequestState = "open" | "merged" | "closed";
export type ChecksState = "pending" | "success" | "failure" | "none";

/** The pull request of one task's branch in one repository. */
export interface PullRequestRecord {
  taskId: string;
  repositoryId: string;
  provider: string;
  number: number;
  url: string;
  state: PullRequestState;
  draft: boolean;
  checks: ChecksState;
  reviewDecision: string | null;
  headCommit: string;
  branch: string;
  /** What the host's branch was after Grove's last push: the only lease a force push may use. */
  pushedCommit: string;
  /** Request URL → ETag of the provider's last answers (conditional refreshes). */
  etags: Record<string, string>;
  checkedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The public Comment; `outdated` is computed by the caller from the worktree. */
export function commentView(c: CommentRecord, outdated: boolean): Comment {
  return {
    id: c.id,
    taskId: c.taskId,
    repositoryId: c.repositoryId,
    path: c.path,
    line: c.line,
    side: c.side,
    body: c.body,
    state: c.state,
    outdated,
    commit: c.commit,
    lineText: c.lineText,
    ...(c.sessionId !== null ? { sessionId: c.sessionId } : {}),
    ...(c.sentTurn !== null ? { turn: c.sentTurn } : {}),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export function pullRequestView(p: PullRequestRecord): PullRequest {
  return {
    repositoryId: p.repositoryId,
    provider: p.provider,
    number: p.number,
    url: p.url,
    state: p.state,
    draft: p.draft,
    checks: p.checks,
    ...(p.reviewDecision !== null ? { reviewDecision: p.reviewDecision } : {}),
    headCommit: p.headCommit,
    updatedAt: p.updatedAt,
  };
}
