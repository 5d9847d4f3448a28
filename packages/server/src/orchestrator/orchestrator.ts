import type {
  DailyBudget,
  DiffScope,
  ListTasksQuery,
  PatchAgentBody,
  PutBudgetBody,
  PutDailyBudgetBody,
  TaskCountsQuery,
  UsageQuery,
  UsageReport,
} from "@grove/protocol";
import type {
  AgentProfile,
  Task,
  CreateRepositoryBody,
  PatchRepositoryBody,
  CreateSessionBody,
  CreateTaskBody,
  Environment,
  PatchTaskBody,
  WorkspaceInfo,
} from "@grove/protocol";
import { editorSetting, patchAgentProfile, setEditor } from "./settings/person-settings.js";
import { checkAgentProfile, installAgentProfile, listAgentProfiles, setSessionMode, setSessionModel } from "./sessions/agent-ops.js";
import { AppError } from "../domain/errors.js";
import type { MessageRecord, RepositoryRecord, SessionRecord, TaskRecord } from "../domain/records.js";
import type { Deps } from "./context.js";
import { taskChanges, taskFileDiff } from "./changes/changes.js";
import { ChangesWatch } from "./changes/changes-watch.js";
import { startSession } from "./sessions/launch.js";
import { LiveSessions } from "./sessions/live-sessions.js";
import { recoverAfterListening, recoverBeforeListening } from "./sessions/recovery.js";
import { stopRunnerGroups } from "./lifecycle/agent-groups.js";
import { addRepository, getRepositoryOr404 } from "./repositories/repositories.js";
import { patchRepositorySettings } from "./repositories/repository-settings.js";
import { removeRepository } from "./repositories/repository-remove.js";
import { cancelSession, deleteSession, getSessionOr404, promptSession, restartSession, resumeSession } from "./sessions/session-ops.js";
import { dropQueuedPrompt, queuePrompt, sendQueuedPrompt } from "./sessions/queued-prompts.js";
import { createTask, getTaskOr404, patchTask } from "./tasks/tasks.js";
import { workspaceInfo } from "./worktrees/workspace.js";
import type { CleanupJobRecord } from "../domain/cleanup-job.js";
import { CleanupWorker } from "./lifecycle/cleanup-worker.js";
import { runDoctor } from "./lifecycle/doctor.js";
import { assertTaskWorkable, listCleanupJobs, requestCleanup, unarchiveTask } from "./lifecycle/lifecycle.js";
import { listTrash, restoreDeletedTask } from "./lifecycle/trash.js";
import { environmentWithDisk } from "./worktrees/environment-view.js";
import { restoreTaskEnvironment } from "./sessions/session-workspace.js";
import { ReviewService } from "./review/review.js";
import { countTasks, listTasks } from "./tasks/task-list.js";
import { cleanupJobPage, messagePage, sessionPage } from "./sessions/paged-lists.js";
import { TaskSummaryEvents } from "./changes/summary-events.js";
import { InboxFeed } from "./inbox/inbox-feed.js";
import { listInbox, markInboxDone, markInboxRead } from "./inbox/inbox-ops.js";
import { LOCAL_RUNNER_DEFAULTS, RunnerRegistry } from "./runners/runner-registry.js";
import { RunnerGuard } from "./runners/runner-guard.js";
import { RunnerPlacement } from "./runners/runner-placement.js";
import { environmentView, taskView } from "../domain/views.js";
import { McpTools } from "./agent-mcp/mcp-tools.js";
import { repositoryOnThisRunner } from "./refresh/repository-on-runner.js";
import { Elicitations } from "./agent-mcp/elicitations.js";
import { Questions } from "./agent-mcp/questions.js";
import { Subtasks } from "./agent-mcp/subtasks.js";
import { archiveWithSubtasks, type ChildrenChoice } from "./agent-mcp/archive-subtree.js";
import { Workflows } from "./workflows/workflows.js";

/**
 * The application's use cases behind the HTTP operations (`@grove/protocol/operations`) and the
 * start-up recovery; the methods compose the store, the git layer and the agent runtime.
 */
export class Orchestrator {
  readonly live: LiveSessions;
  /** CHG-3 / WT-5: file-system watching of every active worktree (live changes, vanished roots). */
  readonly changesWatch: ChangesWatch;

  constructor(private readonly deps: Deps) {
    this.live = new LiveSessions(deps);
    // LIVE-4: the durable inbox is fed from the bus; answered permission asks resolve their items.
    this.inbox = new InboxFeed(deps);
    this.live.onAskSettled = (requestId) => this.inbox.askSettled(requestId);
    this.live.onTurnWaiting = (sessionId) => sendQueuedPrompt(this.deps, this.live, sessionId);
    // Subscribed in `afterListening`: start-up recovery's events would each cost three queries
    // before `listening`, and the sweep there covers every task anyway.
    this.changesWatch = new ChangesWatch(deps);
    this.summaries = new TaskSummaryEvents(deps, () => this.live.askingSessionIds());
    this.cleanup = new CleanupWorker(deps);
    this.review = new ReviewService(deps, this.live);
    // LIVE-4: a worktree left holding conflicts is an inbox item until the update is continued or aborted.
    this.review.onUpdateResult = (taskId, result) => this.inbox.updateResult(taskId, result);
    this.runners = new RunnerRegistry(deps, deps.runner ?? LOCAL_RUNNER_DEFAULTS);
    this.runnerGuard = new RunnerGuard(deps, this.runners);
    this.placement = new RunnerPlacement(deps, this.runners);
    // MCP-2: the use cases behind Grove's MCP tools (the gateway in app.ts serves them).
    this.questions = new Questions(deps, this.live, (id, text) => this.prompt(id, text));
    // MCP-3: agents' ACP form elicitations are the same inbox questions.
    const elicitations = new Elicitations(deps, this.questions);
    this.live.elicitationHandler = (session, ask, signal) => elicitations.answer(session, ask, signal);
    this.mcpTools = new McpTools(deps, this.live, this.questions, new Subtasks(deps, (taskId, body) => this.startSession(taskId, body)));
    this.workflows = new Workflows(deps, {
      startSession: (taskId, body, opts) => this.startSession(taskId, body, opts),
      promptComments: (sessionId, commentIds, prompt) =>
        this.guardSessionLaunch(sessionId, () => this.review.prompt(sessionId, { commentIds, ...(prompt ? { prompt } : {}) })),
      prompt: (sessionId, text) => this.prompt(sessionId, text),
      cancelTurn: (sessionId) => this.cancel(sessionId),
      sendFeedback: (taskId, sessionId) => this.guardSessionLaunch(sessionId, () => this.review.feedback(taskId, sessionId)),
      createTask: (body, opts) => createTask(this.deps, body, undefined, opts),
      pullRequest: (taskId, body, opts) => this.review.createPullRequests(taskId, body, opts),
      archiveTask: (taskId) => this.archiveTask(taskId),
      updateFromBase: (taskId, body) => this.review.updateFromBase(taskId, body),
      abortUpdate: (taskId, body) => this.review.abortUpdate(taskId, body),
      sendConflicts: (taskId, body) => this.guardSessionLaunch(body.sessionId, () => this.review.sendConflicts(taskId, body)),
    });
    // LC-2: every session / environment / row insert checks for an active cleanup job.
    deps.store.setCreationBarrier(deps.store.cleanupBarrier);
  }

  /** WF-1/WF-2: workflows and their runs. */
  readonly workflows: Workflows;
  /** MCP-2: what Grove's MCP tools do. */
  readonly mcpTools: McpTools;
  /** MCP-3: agents' ask_user questions (inbox items of kind `question`). */
  readonly questions: Questions;
  answerQuestion = (itemId: string, answer: string) => this.questions.answer(itemId, answer);
  /** Review comments, commit, update from base, merge, pull requests. */
  readonly review: ReviewService;
  /** LIVE-4: raises and resolves the durable attention inbox's items. */
  readonly inbox: InboxFeed;
  listInbox = async (state: "open" | "all") => this.questions.decorate(await listInbox(this.deps, state));
  markInboxDone = (id: string) => markInboxDone(this.deps, id);
  markInboxRead = (id: string) => markInboxRead(this.deps, id);
  /** `task.summary` frames for the board. */
  readonly summaries: TaskSummaryEvents;

  /** This runner's row in the registry (started by app.ts once the server listens). */
  readonly runners: RunnerRegistry;
  /** Runner_offline / capacity checks in front of task operations. */
  readonly runnerGuard: RunnerGuard;
  /** Which runner a task's operations run on (the API's forwarding seam asks it). */
  readonly placement: RunnerPlacement;

  /** LC-2 … LC-4: runs this runner's cleanup jobs. */
  readonly cleanup: CleanupWorker;

  /**
   * Start-up recovery a request depends on (SES-6); the rest waits for `afterListening` so the
   * time to `listening` does not grow with history.
   */
  async start(): Promise<void> {
    this.recovered = await recoverBeforeListening(this.deps);
    // WT-10: before any launch, every pooled worktree is back in the pool or one task's.
    if (this.deps.pool) {
      const repositories = (await this.deps.store.listRepositories()).map((r) => repositoryOnThisRunner(this.deps, r));
      await this.deps.pool.recover(repositories);
    }
    this.review.start();
  }

  private recovered: SessionRecord[] = [];
  /** The deferred recovery, the watchers and the cleanup worker's start, once (see `afterListening`). */
  private deferred: Promise<void> | undefined;

  /**
   * Re-derives recovered tasks' states, starts watching every active worktree (CHG-3 / WT-5,
   * agent or not), then starts the cleanup worker (LC-4).
   */
  afterListening(): Promise<void> {
    if (!this.deferred && !this.live.shuttingDown) this.changesWatch.start();
    this.deferred ??= recoverAfterListening(this.deps, this.recovered)
      .then(() => (this.live.shuttingDown ? undefined : this.changesWatch.watchAll()))
      .catch((err: unknown) => this.deps.log.error({ err }, "deferred start-up recovery failed"))
      .finally(() => {
        this.recovered = [];
        if (!this.live.shuttingDown) this.cleanup.start();
        if (!this.live.shuttingDown) this.workflows.engine.start();
      });
    return this.deferred;
  }

  /** Graceful stop: agents get their ACP connection closed, then SIGTERM, then SIGKILL. */
  async shutdown(): Promise<void> {
    await this.runners.stop().catch((err: unknown) => this.deps.log.warn({ err }, "shutdown: could not mark the runner stopped"));
    this.live.shuttingDown = true;
    this.live.dispose();
    this.changesWatch.dispose();
    await this.summaries.dispose();
    await this.deferred?.catch(() => undefined);
    await this.deps.pool?.close();
    await this.cleanup.stop();
    await this.workflows.engine.stop();
    await this.review.stop();
    await this.deps.agents.close({ graceMs: 2000 });
    // SES-5.9, LIVE-1: launches on their way end now (the runtime refuses their agents) before the
    // home is released; one stuck longer (a hung fetch) is logged and left behind.
    if (!(await this.deps.launches.settled(15_000))) this.deps.log.warn({ waitedMs: 15_000 }, "shutdown: a session launch was still on its way");
    // SEC-7: groups recorded for this runner without a live handle (survivors of an earlier stop).
    await stopRunnerGroups(this.deps, { graceMs: 2000, killWaitMs: 1000 }).catch((err: unknown) =>
      this.deps.log.warn({ err }, "shutdown: could not stop recorded agent groups"),
    );
    // LIVE-4: the asks the stop withdrew are written before the store closes.
    await this.inbox.flush();
    this.inbox.dispose();
  }

  // repositories
  /** The registering runner holds the repository (its path or managed clone is on this disk). */
  addRepository = async (body: CreateRepositoryBody): Promise<RepositoryRecord> => {
    const repo = await addRepository(this.deps, body);
    await this.deps.store.placement.setRepositoryRunner(repo.id, this.deps.runnerId);
    return repo;
  };
  listRepositories = (): Promise<RepositoryRecord[]> => this.deps.store.listRepositories();
  getRepository = (id: string): Promise<RepositoryRecord> => getRepositoryOr404(this.deps, id);
  patchRepository = (id: string, body: PatchRepositoryBody): Promise<RepositoryRecord> => patchRepositorySettings(this.deps, id, body);
  removeRepository = (id: string): Promise<void> => removeRepository(this.deps, id);

  // tasks
  /** `runnerLabels` are recorded with the task, for the first placement. */
  createTask = async (body: CreateTaskBody): Promise<TaskRecord> => {
    const { runnerLabels, ...rest } = body;
    const task = await createTask(this.deps, rest);
    if (runnerLabels?.length) await this.deps.store.placement.setTaskLabels(task.id, [...new Set(runnerLabels)]);
    return task;
  };
  listTasks = (archived: boolean): Promise<TaskRecord[]> => this.deps.store.listTasks({ archived });
  /** `GET /tasks` with filters, `view` and paging. */
  queryTasks = (q: ListTasksQuery) => listTasks(this.deps, q, () => this.live.askingSessionIds());
  countTasks = (q: TaskCountsQuery) => countTasks(this.deps, q);
  getTask = (id: string): Promise<TaskRecord> => getTaskOr404(this.deps, id);
  /** WF-2: a person's move is checked against the WIP limit and cancels the task's automation in progress. */
  patchTask = async (id: string, body: PatchTaskBody): Promise<TaskRecord> => {
    if (body.state !== undefined) await this.workflows.engine.beforePersonMove(await getTaskOr404(this.deps, id), body.state);
    return patchTask(this.deps, id, body);
  };

  async getEnvironment(taskId: string): Promise<Environment> {
    await getTaskOr404(this.deps, taskId);
    const env = await this.deps.store.getEnvironmentByTask(taskId);
    if (!env) throw new AppError("not_found", `task ${taskId} has no environment`, { taskId });
    const runnerState = await this.runners.stateOf(env.runnerId);
    // Another runner's worktrees are never looked at from here: the recorded rows only.
    if (env.runnerId !== this.deps.runnerId) return { ...environmentView(env, await this.deps.store.listEnvironmentRepos(env.id)), runnerState };
    return { ...(await environmentWithDisk(this.deps, env)), runnerState };
  }

  /** A task with its environment's runner and that runner's state. */
  async getTaskWithRunner(
    id: string,
  ): Promise<TaskRecord & { runnerId: string | null; runnerState: "online" | "offline" | null; runnerLabels: string[]; progress: Task["progress"] }> {
    const task = await getTaskOr404(this.deps, id);
    const p = await this.deps.store.mcp.getProgress(id);
    const progress = p ? { status: p.status, plan: p.plan, updatedAt: p.updatedAt } : null;
    return { ...task, ...(await this.runnerGuard.taskRunner(id)), runnerLabels: await this.deps.store.placement.taskLabels(id), progress };
  }

  /** WT-5 on request: recreate vanished worktrees in place, e.g. for a task with no session left. */
  async restoreEnvironment(taskId: string): Promise<Environment> {
    await getTaskOr404(this.deps, taskId);
    await this.runnerGuard.assertTaskReachable(taskId);
    // LC-1: never bring a worktree back under an archive, delete or reset (cleanup waits for us).
    await assertTaskWorkable(this.deps, taskId);
    const env = await this.deps.launches.run(taskId, () => restoreTaskEnvironment(this.deps, taskId));
    return environmentWithDisk(this.deps, env);
  }

  changes = (taskId: string) => taskChanges(this.deps, taskId);
  fileDiff = (taskId: string, repositoryId: string, path: string, worktreeId?: string, scope?: DiffScope) =>
    taskFileDiff(this.deps, taskId, repositoryId, path, worktreeId, scope);

  // sessions
  async startSession(taskId: string, body: CreateSessionBody, opts: { sessionId?: string } = {}): Promise<SessionRecord> {
    await getTaskOr404(this.deps, taskId);
    await this.runnerGuard.assertRequestedRunner(body.runnerId);
    await this.runnerGuard.assertTaskReachable(taskId);
    return this.deps.launches.follow(this.runnerGuard.withSlot(() => startSession(this.deps, this.live, taskId, body, opts)));
  }
  async listSessions(taskId: string): Promise<SessionRecord[]> {
    await getTaskOr404(this.deps, taskId);
    return this.deps.store.listSessions(taskId);
  }
  sessionPage = (taskId: string, limit: number, cursor?: string) => sessionPage(this.deps, taskId, limit, cursor);
  getSession = (id: string): Promise<SessionRecord> => getSessionOr404(this.deps, id);
  async listMessages(id: string): Promise<MessageRecord[]> {
    await getSessionOr404(this.deps, id);
    return this.deps.store.listMessages(id);
  }
  messagePage = (id: string, limit: number, before?: string) => messagePage(this.deps, id, limit, before);
  async workspace(id: string): Promise<WorkspaceInfo> {
    return workspaceInfo(this.deps, await getSessionOr404(this.deps, id));
  }
  prompt = (id: string, text: string): Promise<SessionRecord> => this.guardSessionLaunch(id, () => promptSession(this.deps, this.live, id, text));
  /** WEB-37: queue a follow-up behind the running turn (sent at once when the session waits). */
  queuePrompt = (id: string, text: string): Promise<SessionRecord> => this.guardSessionLaunch(id, () => queuePrompt(this.deps, this.live, id, text));
  dropQueuedPrompt = (id: string, queuedId: string): Promise<SessionRecord> => dropQueuedPrompt(this.deps, id, queuedId);
  cancel = (id: string): Promise<SessionRecord> => cancelSession(this.deps, id);
  resume = (id: string): Promise<SessionRecord> => this.guardSessionLaunch(id, () => resumeSession(this.deps, this.live, id));
  /** LIVE-3: a new agent for the session (`session/load`), the old one's process group stopped. */
  restart = (id: string): Promise<SessionRecord> => this.guardSessionLaunch(id, () => restartSession(this.deps, this.live, id));
  /**
   * Prompt and resume act only where the task's files are (`runner_offline`), and
   * starting an agent for a session without a live one here takes a capacity slot.
   */
  async guardSessionLaunch<T>(id: string, run: () => Promise<T>): Promise<T> {
    const session = await getSessionOr404(this.deps, id);
    await this.runnerGuard.assertTaskReachable(session.taskId);
    return this.deps.launches.follow(this.deps.agents.get(id) ? run() : this.runnerGuard.withSlot(run));
  }
  deleteSession = (id: string): Promise<void> => deleteSession(this.deps, this.live, id);
  async answerPermission(id: string, requestId: string, optionId: string | null): Promise<void> {
    const session = await getSessionOr404(this.deps, id);
    this.live.answerPermission(id, requestId, optionId);
    this.summaries.touch(session.taskId);
  }

  // lifecycle (LC-1 … LC-8)
  // A cleanup of a task whose runner is offline is refused, not queued (docs/specs/runners.md).
  // MCP-3.7: a task with open subtasks is archived only when told what becomes of them.
  archiveTask = (id: string, children?: ChildrenChoice): Promise<CleanupJobRecord> =>
    archiveWithSubtasks(
      {
        deps: this.deps,
        worker: this.cleanup,
        assertReachable: (taskId) => this.runnerGuard.assertTaskReachable(taskId),
        // MCP-1: an archived task's sessions lose their MCP tokens at once (their agents stop too).
        revoke: (taskId) => this.deps.mcp?.tokens.revokeTask(taskId),
      },
      id,
      children,
    );
  unarchiveTask = (id: string): Promise<TaskRecord> => unarchiveTask(this.deps, id);
  /** LIVE-5: the trash and restoring a task from it. */
  listTrash = () => listTrash(this.deps);
  restoreDeletedTask = (id: string): Promise<TaskRecord> => restoreDeletedTask(this.deps, id);
  deleteTask = async (id: string, discardChanges: boolean): Promise<CleanupJobRecord> => {
    await this.runnerGuard.assertTaskReachable(id);
    return requestCleanup(this.deps, this.cleanup, id, "delete", { discardChanges });
  };
  resetEnvironment = async (id: string): Promise<CleanupJobRecord> => {
    await this.runnerGuard.assertTaskReachable(id);
    return requestCleanup(this.deps, this.cleanup, id, "environment_reset");
  };
  listCleanupJobs = (taskId?: string): Promise<CleanupJobRecord[]> => listCleanupJobs(this.deps, taskId);
  cleanupJobPage = (taskId: string | undefined, limit: number, cursor?: string) => cleanupJobPage(this.deps, taskId, limit, cursor);
  doctor = () => runDoctor(this.deps);

  // agents (AG-2, AG-3)
  /** `GET /agents`: each profile with its daily cap and today's spend (USE-2). */
  agentProfiles = async (): Promise<AgentProfile[]> =>
    Promise.all((await listAgentProfiles(this.deps)).map(async (p) => ({ ...p, budget: await this.live.usage.agentBudget(p.name) })));
  /** USE-2 `PUT|DELETE /agents/:name/budget` (`reset`: no cap). */
  putAgentBudget = async (name: string, body: PutDailyBudgetBody | "reset"): Promise<AgentProfile> => {
    const p = (await listAgentProfiles(this.deps)).find((x) => x.name === name);
    if (!p) throw new AppError("not_found", `no agent profile named ${JSON.stringify(name)}`, { name, known: this.deps.profiles.map((x) => x.name) });
    return { ...p, budget: await this.live.usage.putAgentBudget(name, body) };
  };
  installAgent = (name: string) => installAgentProfile(this.deps, name);
  checkAgent = (name: string) => checkAgentProfile(this.deps, name);
  /** WEB-44: the Settings page's agent profile choices and editor command. */
  patchAgent = (name: string, body: PatchAgentBody) => patchAgentProfile(this.deps, name, body);
  editorSetting = (fromEnvironment: string | undefined) => editorSetting(this.deps, fromEnvironment);
  setEditor = (command: string | undefined, fromEnvironment: string | undefined) => setEditor(this.deps, command, fromEnvironment);
  setMode = (id: string, modeId: string): Promise<SessionRecord> => setSessionMode(this.deps, this.live, id, modeId);
  setModel = (id: string, modelId: string): Promise<SessionRecord> => setSessionModel(this.deps, this.live, id, modelId);

  // usage and budgets (USE-1, USE-2)
  usageReport = (q: UsageQuery): Promise<UsageReport> => this.live.usage.report(q);
  dailyBudget = (): Promise<DailyBudget> => this.live.usage.dailyBudget();
  putDailyBudget = (body: PutDailyBudgetBody | "reset"): Promise<DailyBudget> => this.live.usage.putDailyBudget(body);
  async putBudget(id: string, body: PutBudgetBody): Promise<TaskRecord> {
    await this.live.usage.putBudget(await getTaskOr404(this.deps, id), body);
    const task = await getTaskOr404(this.deps, id);
    this.deps.bus.publish("task.updated", { task: taskView(task) });
    return task;
  }
}
