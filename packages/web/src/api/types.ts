/**
 * Shapes the page reads that `@grove/protocol` does not declare (yet): review comments and
 * pull requests (CONTRACT.md, issue 11), pending permission questions, the terminal.
 */
export interface PermissionAsk {
  requestId: string;
  title: string;
  options: { optionId: string; name: string; kind: string }[];
}

export interface ReviewComment {
  id: string;
  taskId: string;
  repositoryId: string;
  path: string;
  line: number;
  side: "new" | "old";
  body: string;
  state: "open" | "sent" | "resolved";
  outdated: boolean;
  commit: string;
  sessionId?: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface PullRequest {
  repositoryId: string;
  provider: string;
  number: number;
  url: string;
  state: "open" | "merged" | "closed";
  draft: boolean;
  checks: "pending" | "success" | "failure" | "none";
  reviewDecision?: string | null;
  headCommit: string;
  updatedAt: string;
}

/** Filters of the board; every field narrows (they combine with AND). */
export interface TaskFilter {
  archived: boolean;
  q: string;
  repositoryId: string;
  state: string;
  /** `state:<agent state>` of the summaries (`running`, `needs_permission`, `waiting`, `failed`, `none`), or empty. */
  agent: string;
}
