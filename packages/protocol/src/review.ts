import { z } from "zod";

/** Review-to-land shapes (docs/specs/review.md). Fields may be added; none renamed. */

export const CommentSide = z.enum(["new", "old"]);
export const CommentState = z.enum(["open", "sent", "resolved"]);

/** A review comment anchored to one line of one file of one repository of a task. */
export const Comment = z.object({
  id: z.string(),
  taskId: z.string(),
  repositoryId: z.string(),
  path: z.string(),
  line: z.number().int(),
  side: CommentSide,
  body: z.string(),
  state: CommentState,
  /** The line's text at the anchor is no longer what it was when the comment was made. */
  outdated: z.boolean(),
  /** The worktree's HEAD (side new) or the merge-base (side old) when the comment was made. */
  commit: z.string(),
  /** The line's text when the comment was made. */
  lineText: z.string(),
  sessionId: z.string().optional(),
  /** The session's turn (1-based count of prompts) the comment was sent in. */
  turn: z.number().int().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Comment = z.infer<typeof Comment>;

export const CreateCommentBody = z
  .object({
    repositoryId: z.string().min(1).max(100),
    path: z.string().min(1).max(4096),
    line: z.number().int().min(1),
    side: CommentSide.optional(),
    body: z.string().trim().min(1).max(100_000),
  })
  .strict();
export type CreateCommentBody = z.infer<typeof CreateCommentBody>;

export const PatchCommentBody = z
  .object({ body: z.string().trim().min(1).max(100_000).optional(), state: z.enum(["open", "resolved"]).optional() })
  .strict()
  .refine((b) => b.body !== undefined || b.state !== undefined, { message: "give body or state", path: ["body"] });
export type PatchCommentBody = z.infer<typeof PatchCommentBody>;

const repositoryId = z.string().min(1).max(100);
const repoPath = z.string().min(1).max(4096);

export const CommitBody = z
  .object({
    repositoryId: repositoryId.optional(),
    message: z.string().trim().min(1).max(100_000),
    paths: z.array(repoPath).min(1).max(10_000).optional(),
    /** Skip the repository's commit hooks (`--no-verify`); only when a person asks. */
    noVerify: z.boolean().optional(),
  })
  .strict();
export type CommitBody = z.infer<typeof CommitBody>;

export const CommitResult = z.object({ results: z.array(z.object({ repositoryId: z.string(), commit: z.string() })) });
export type CommitResult = z.infer<typeof CommitResult>;

export const UpdateMode = z.enum(["rebase", "merge"]);
export const UpdateFromBaseBody = z
  .object({ repositoryId: repositoryId.optional(), mode: UpdateMode.optional(), autostash: z.boolean().optional(), keepConflicts: z.boolean().optional() })
  .strict();
export type UpdateFromBaseBody = z.infer<typeof UpdateFromBaseBody>;

/** `aborted`: answer of `/abort` (branch, index and files back as before the update). */
export const UpdateOutcome = z.enum(["up_to_date", "updated", "conflicts", "aborted"]);
export const UpdateResult = z.object({
  results: z.array(
    z.object({
      repositoryId: z.string(),
      outcome: UpdateOutcome,
      conflicts: z.array(z.string()).optional(),
      backupRef: z.string(),
      /** The branch's commit after the operation (before it while conflicts are kept). */
      commit: z.string().optional(),
    }),
  ),
});
export type UpdateResult = z.infer<typeof UpdateResult>;

export const UpdateStepBody = z.object({ repositoryId }).strict();
export type UpdateStepBody = z.infer<typeof UpdateStepBody>;

export const MergeStrategy = z.enum(["merge", "squash", "fast_forward"]);
export const MergeBody = z
  .object({
    repositoryId: repositoryId.optional(),
    strategy: MergeStrategy.optional(),
    message: z.string().trim().min(1).max(100_000).optional(),
    /** Merge the branch's commits although the task's worktree has uncommitted changes (they stay there). */
    leaveUncommitted: z.boolean().optional(),
  })
  .strict();
export type MergeBody = z.infer<typeof MergeBody>;

export const MergeResult = z.object({
  results: z.array(
    z.object({
      repositoryId: z.string(),
      /** The repository's name, for people. */
      repositoryName: z.string().optional(),
      baseBranch: z.string(),
      commit: z.string(),
      /** True when the base already held every change of the branch: nothing was merged. */
      upToDate: z.boolean().optional(),
    }),
  ),
});
export type MergeResult = z.infer<typeof MergeResult>;

export const PullRequestState = z.enum(["open", "merged", "closed"]);
export const ChecksState = z.enum(["pending", "success", "failure", "none"]);

export const PullRequest = z.object({
  repositoryId: z.string(),
  provider: z.string(),
  number: z.number().int(),
  url: z.string(),
  state: PullRequestState,
  draft: z.boolean(),
  checks: ChecksState,
  reviewDecision: z.string().optional(),
  headCommit: z.string(),
  updatedAt: z.string(),
});
export type PullRequest = z.infer<typeof PullRequest>;

export const CreatePullRequestBody = z
  .object({
    repositoryId: repositoryId.optional(),
    title: z.string().trim().min(1).max(1000).optional(),
    body: z.string().max(100_000).optional(),
    draft: z.boolean().optional(),
  })
  .strict();
export type CreatePullRequestBody = z.infer<typeof CreatePullRequestBody>;

export const FeedbackBody = z.object({ sessionId: z.string().min(1).max(100) }).strict();
export type FeedbackBody = z.infer<typeof FeedbackBody>;

/** RV-8: one conflict region of a file (from `<<<<<<<` to `>>>>>>>`, 1-based lines, inclusive). */
export const ConflictHunk = z.object({ startLine: z.number().int(), endLine: z.number().int(), text: z.string() });
export type ConflictHunk = z.infer<typeof ConflictHunk>;

/** RV-8: the stopped update of each repository of a task, with its conflicted files. */
export const TaskConflicts = z.object({
  taskId: z.string(),
  repositories: z.array(
    z.object({
      repositoryId: z.string(),
      operation: z.enum(["rebase", "merge"]),
      backupRef: z.string().nullable(),
      files: z.array(z.object({ path: z.string(), resolved: z.boolean(), hunks: z.array(ConflictHunk) })),
    }),
  ),
});
export type TaskConflicts = z.infer<typeof TaskConflicts>;

/** RV-8: `POST /tasks/:id/conflicts/send`: the conflict hunks (and optional words of the person) as one prompt. */
export const SendConflictsBody = z
  .object({ sessionId: z.string().min(1).max(100), repositoryId: repositoryId.optional(), prompt: z.string().max(100_000).optional() })
  .strict();
export type SendConflictsBody = z.infer<typeof SendConflictsBody>;
