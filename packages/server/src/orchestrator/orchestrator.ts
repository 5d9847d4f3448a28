import type { AgentProfile, CreateRepositoryBody, PatchRepositoryBody, CreateSessionBody, CreateTaskBody, Environment, PatchTaskBody, WorkspaceInfo } from "@grove/protocol";
import { toPublicProfile } from "../agents/profiles.js";
import { AppError } from "../domain/errors.js";
import type { MessageRecord, RepositoryRecord, SessionRecord, TaskRecord } from "../domain/records.js";
import { environmentView } from "../domain/views.js";
import type { Deps } from "./context.js";
import { taskChanges, taskFileDiff } from "./changes.js";
import { ChangesWatch } from "./changes-watch.js";
import { startSession } from "./launch.js";
import { LiveSessions } from "./live-sessions.js";
import { recoverOnStartup } from "./recovery.js";
import { addRepository, getRepositoryOr404 } from "./repositories.js";
import { patchRepositorySettings } from "./repository-settings.js";
import { cancelSession, deleteSession, getSessionOr404, promptSession, resumeSession } from "./session-ops.js";
import { createTask, getTaskOr404, patchTask } from "./tasks.js";
import { restoreWorkspace, workspaceInfo } from "./workspace.js";
import { projectWorkspace } from "../domain/workspace-projection.js";
import { taskRoot } from "./paths.js";
import type { CleanupJobRecord } from "../domain/cleanup-job.js";
import { CleanupWorker } from "./cleanup-worker.js";
import { runDoctor } from "./doctor.js";
import { assertTaskWorkable, listCleanupJobs, requestCleanup, unarchiveTask } from "./lifecycle.js";
import { ReviewService } from "./review.js";

/**
 * The application's use cases, one method per operation of CONTRACT.md. The API layer calls
 * only this; the methods compose the store, the git layer and the agent runtime.
 */
export class Orchestrator {
  readonly live: LiveSessions;
  /** CHG-3: file-system watching of the worktrees of tasks with a live agent. */
  readonly changesWatch: ChangesWatch;

  constructor(readonly deps: Deps) {
    this.live = new LiveSessions(deps);
    this.changesWatch = new ChangesWatch(deps);
    this.changesWatch.start();
    this.cleanup = new CleanupWorker(deps);
    this.review = new ReviewService(deps, this.live);
    // LC-2: every session / environment / row insert checks for an active cleanup job.
    deps.store.setCreationBarrier(deps.store.cleanupBarrier);
  }

  /** Issue 11: review comments, commit, update from base, merge, pull requests. */
  readonly review: ReviewService;

  /** LC-2 … LC-4: runs this runner's cleanup jobs. */
  readonly cleanup: CleanupWorker;

  async start(): Promise<void> {
    await recoverOnStartup(this.deps);
    this.cleanup.start();
    this.review.start();
  }

  /** Graceful stop: agents get their ACP connection closed, then SIGTERM, then SIGKILL. */
  async shutdown(): Promise<void> {
    this.live.shuttingDown = true;
    this.live.dispose();
    this.changesWatch.dispose();
    await this.cleanup.stop();
    await this.review.stop();
    await this.deps.agents.stopAll({ graceMs: 2000 });
  }

  // repositories
  addRepository = (body: CreateRepositoryBody): Promise<RepositoryRecord> => addRepository(this.deps, body);
  listRepositories = (): Promise<RepositoryRecord[]> => this.deps.store.listRepositories();
  getRepository = (id: string): Promise<RepositoryRecord> => getRepositoryOr404(this.deps, id);
  patchRepository = (id: string, body: PatchRepositoryBody): Promise<RepositoryRecord> => patchRepositorySettings(this.deps, id, body);

  // tasks
  createTask = (body: CreateTaskBody): Promise<TaskRecord> => createTask(this.deps, body);
  listTasks = (archived: boolean): Promise<TaskRecord[]> => this.deps.store.listTasks({ archived });
  getTask = (id: string): Promise<TaskRecord> => getTaskOr404(this.deps, id);
  patchTask = (id: string, body: PatchTaskBody): Promise<TaskRecord> => patchTask(this.deps, id, body);

  async getEnvironment(taskId: string): Promise<Environment> {
    await getTaskOr404(this.deps, taskId);
    const env = await this.deps.store.getEnvironmentByTask(taskId);
    if (!env) throw new AppError("not_found", `task ${taskId} has no environment`, { taskId });
    return environmentView(env, await this.deps.store.listEnvironmentRepos(env.id));
  }

  /** WT-5 on request: recreate vanished worktrees in place, e.g. for a task with no session left. */
  async restoreEnvironment(taskId: string): Promise<Environment> {
    const task = await getTaskOr404(this.deps, taskId);
    const env = await this.deps.store.getEnvironmentByTask(taskId);
    if (!env) throw new AppError("not_found", `task ${taskId} has no environment`, { taskId });
    // LC-1: never bring a worktree back under an archive, delete or reset (cleanup waits for us).
    await assertTaskWorkable(this.deps, taskId);
    const rows = await this.deps.store.listEnvironmentRepos(env.id);
    await this.deps.launches.run(taskId, () => restoreWorkspace(this.deps, projectWorkspace(env, rows, taskRoot(this.deps, task)), { taskId }));
    return environmentView(env, rows);
  }

  changes = (taskId: string) => taskChanges(this.deps, taskId);
  fileDiff = (taskId: string, repositoryId: string, path: string, worktreeId?: string) => taskFileDiff(this.deps, taskId, repositoryId, path, worktreeId);

  // sessions
  startSession = (taskId: string, body: CreateSessionBody): Promise<SessionRecord> => startSession(this.deps, this.live, taskId, body);
  async listSessions(taskId: string): Promise<SessionRecord[]> {
    await getTaskOr404(this.deps, taskId);
    return this.deps.store.listSessions(taskId);
  }
  getSession = (id: string): Promise<SessionRecord> => getSessionOr404(this.deps, id);
  async listMessages(id: string): Promise<MessageRecord[]> {
    await getSessionOr404(this.deps, id);
    return this.deps.store.listMessages(id);
  }
  async workspace(id: string): Promise<WorkspaceInfo> {
    return workspaceInfo(this.deps, await getSessionOr404(this.deps, id));
  }
  prompt = (id: string, text: string): Promise<SessionRecord> => promptSession(this.deps, this.live, id, text);
  cancel = (id: string): Promise<SessionRecord> => cancelSession(this.deps, id);
  resume = (id: string): Promise<SessionRecord> => resumeSession(this.deps, this.live, id);
  deleteSession = (id: string): Promise<void> => deleteSession(this.deps, this.live, id);
  async answerPermission(id: string, requestId: string, optionId: string | null): Promise<void> {
    await getSessionOr404(this.deps, id);
    this.live.answerPermission(id, requestId, optionId);
  }

  // lifecycle (LC-1 … LC-8)
  archiveTask = (id: string): Promise<CleanupJobRecord> => requestCleanup(this.deps, this.cleanup, id, "archive");
  unarchiveTask = (id: string): Promise<TaskRecord> => unarchiveTask(this.deps, id);
  deleteTask = (id: string, discardChanges: boolean): Promise<CleanupJobRecord> => requestCleanup(this.deps, this.cleanup, id, "delete", { discardChanges });
  resetEnvironment = (id: string): Promise<CleanupJobRecord> => requestCleanup(this.deps, this.cleanup, id, "environment_reset");
  listCleanupJobs = (taskId?: string): Promise<CleanupJobRecord[]> => listCleanupJobs(this.deps, taskId);
  doctor = () => runDoctor(this.deps);

  agentProfiles(): AgentProfile[] {
    return this.deps.profiles.map(toPublicProfile);
  }
}
