import { z } from "zod";
import { CredentialPolicy, TaskState } from "./schemas-tasks.js";

/** Request bodies of the HTTP API: strict, so an unknown field is a 400, not silently dropped. */

const name = z.string().trim().min(1).max(200);
const refName = z.string().min(1).max(250);

export const CreateRepositoryBody = z
  .object({
    path: z.string().min(1).max(4096).optional(),
    url: z.string().min(1).max(4096).optional(),
    provider: z.string().min(1).max(64).optional(),
    credential: z
      .object({ token: z.string().min(1).max(4096), username: z.string().max(256).optional() })
      .strict()
      .optional(),
    apiUrl: z.string().min(1).max(4096).optional(),
    name: name.optional(),
    defaultBranch: refName.optional(),
    pullBeforeWorktree: z.boolean().optional(),
    branchTemplate: z.string().min(1).max(200).optional(),
    credentialPolicy: CredentialPolicy.optional(),
    copyFiles: z.array(z.string().min(1).max(500)).max(100).optional(),
    sparseCheckout: z.array(z.string().min(1).max(500)).max(200).optional(),
    setupScript: z.string().min(1).max(20_000).nullable().optional(),
  })
  .strict()
  .refine((b) => (b.path === undefined) !== (b.url === undefined), { message: "give exactly one of path or url", path: ["path"] });
export type CreateRepositoryBody = z.infer<typeof CreateRepositoryBody>;

/** `PATCH /repositories/:id`: checkout settings (WT-9); absent fields stay as they are. */
export const PatchRepositoryBody = z
  .object({
    defaultBranch: refName.optional(),
    pullBeforeWorktree: z.boolean().optional(),
    branchTemplate: z.string().min(1).max(200).optional(),
    copyFiles: z.array(z.string().min(1).max(500)).max(100).optional(),
    sparseCheckout: z.array(z.string().min(1).max(500)).max(200).optional(),
    setupScript: z.string().min(1).max(20_000).nullable().optional(),
  })
  .strict();
export type PatchRepositoryBody = z.infer<typeof PatchRepositoryBody>;

export const TaskRepositoryInput = z
  .object({
    repositoryId: z.string().min(1).max(100),
    baseBranch: refName.optional(),
    checkoutBranch: refName.optional(),
    prNumber: z.number().int().positive().optional(),
  })
  .strict();

export const CreateTaskBody = z
  .object({
    title: z.string().trim().min(1).max(500),
    description: z.string().max(100_000).optional(),
    repositories: z.array(TaskRepositoryInput).min(1).max(20),
    /** Labels the runner of the task's environment must advertise (`GROVE_RUNNER_LABELS`). */
    runnerLabels: z
      .array(
        z
          .string()
          .trim()
          .toLowerCase()
          .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "a label is letters, digits, . _ - (at most 64)"),
      )
      .max(20)
      .optional(),
  })
  .strict();
export type CreateTaskBody = z.infer<typeof CreateTaskBody>;

export const PatchTaskBody = z
  .object({
    title: z.string().trim().min(1).max(500).optional(),
    description: z.string().max(100_000).optional(),
    state: TaskState.optional(),
  })
  .strict();
export type PatchTaskBody = z.infer<typeof PatchTaskBody>;

export const CreateSessionBody = z
  .object({
    agent: z.string().min(1).max(100).optional(),
    prompt: z.string().max(1_000_000).optional(),
    /** The runner to place a new environment on (forwarded there); must be the environment's own once placed. */
    runnerId: z.string().min(1).max(100).optional(),
  })
  .strict();
export type CreateSessionBody = z.infer<typeof CreateSessionBody>;

/** `POST /sessions/:id/prompt`: text, review comments to compose into it, or both. */
export const PromptBody = z
  .object({
    prompt: z.string().min(1).max(1_000_000).optional(),
    commentIds: z.array(z.string().min(1).max(100)).min(1).max(500).optional(),
    /** WEB-37: while a turn runs, queue the prompt (sent when the turn ends) instead of `409 session_busy`; a waiting session takes it at once. */
    queue: z.boolean().optional(),
  })
  .strict()
  .refine((b) => b.prompt !== undefined || b.commentIds !== undefined, { message: "give prompt or commentIds", path: ["prompt"] })
  .refine((b) => !b.queue || b.commentIds === undefined, { message: "queue takes a prompt, not comments", path: ["queue"] });
/** AG-2: `POST /sessions/:id/mode`. */
export const SetModeBody = z.object({ modeId: z.string().min(1).max(200) }).strict();
/** AG-2: `POST /sessions/:id/model`. */
export const SetModelBody = z.object({ modelId: z.string().min(1).max(200) }).strict();
export type PromptBody = z.infer<typeof PromptBody>;
