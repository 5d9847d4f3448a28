import type { WorkflowRecord } from "../../domain/workflow.js";
import type { WorkflowRunRecord } from "../../domain/workflow-run.js";
import type { Deps } from "../context.js";
import { getTaskOr404 } from "../tasks/tasks.js";
import { deleteWorkflow, getWorkflowOr404, listWorkflows, putWorkflow, setWorkflowStopped } from "./workflow-defs.js";
import type { WorkflowPorts } from "./workflow-actions.js";
import { WorkflowEngine } from "./workflow-engine.js";

/** The ports (orchestrator/context.ts) Workflows uses. */
export type WorkflowsPorts = Pick<Deps, "store" | "git" | "worktrees" | "profiles" | "bus" | "log" | "home" | "runnerId" | "now" | "remote" | "sandbox">;

/** WF-1/WF-2: the workflow use cases behind `/workflows` and a task's runs. */
export class Workflows {
  readonly engine: WorkflowEngine;

  constructor(
    private readonly deps: WorkflowsPorts,
    ports: WorkflowPorts,
  ) {
    this.engine = new WorkflowEngine(deps, ports);
  }

  list = (): Promise<WorkflowRecord[]> => listWorkflows(this.deps);
  get = (name: string): Promise<WorkflowRecord> => getWorkflowOr404(this.deps, name);
  /** A stored version may bring a schedule (or change one): the schedules are checked at once. */
  put = async (name: string, body: unknown, ifVersion?: number): Promise<WorkflowRecord> => {
    const w = await putWorkflow(this.deps, name, body, ifVersion);
    void this.engine.schedules.check();
    void this.engine.issues.poll(true);
    void this.engine.archiver.check();
    void this.engine.reviewComments.poll(true);
    void this.engine.baseWatch.poll(true);
    return w;
  };
  remove = (name: string): Promise<void> => deleteWorkflow(this.deps, name);
  async setStopped(name: string, stopped: boolean): Promise<WorkflowRecord> {
    const w = await setWorkflowStopped(this.deps, name, stopped);
    if (stopped) await this.engine.cancelRuns(undefined, "cancelled: the workflow was stopped", name);
    void this.engine.schedules.check();
    return w;
  }

  async runs(taskId: string): Promise<WorkflowRunRecord[]> {
    await getTaskOr404(this.deps, taskId);
    return this.deps.store.workflows.listRuns(taskId);
  }

  /** WF-2: the per-task stop switch. */
  async setTaskStopped(taskId: string, stopped: boolean): Promise<{ taskId: string; stopped: boolean }> {
    await getTaskOr404(this.deps, taskId);
    await this.deps.store.workflows.setTaskStopped(taskId, stopped, this.deps.now());
    if (stopped) await this.engine.cancelRuns(taskId, "cancelled: the task's automation was stopped");
    return { taskId, stopped };
  }
}
