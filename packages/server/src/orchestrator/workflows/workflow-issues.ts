import { newId } from "../../domain/ids.js";
import type { WorkflowRecord } from "../../domain/workflow.js";
import type { WorkflowRunRecord } from "../../domain/workflow-run.js";
import type { Deps } from "../context.js";
import { issueAccess } from "./workflow-issue-actions.js";

type Enqueue = (
  r: Pick<WorkflowRunRecord, "idemKey" | "taskId" | "entryId" | "workflow" | "version" | "step" | "actionIndex" | "cause"> & {
    action: WorkflowRunRecord["action"];
  },
) => Promise<WorkflowRunRecord | undefined>;

/** The cause of the issues trigger's runs. */
export const ISSUE_CAUSE = "issue";

/** The longest sleep between two looks at the workflows (a new issues trigger is noticed by then). */
const MAX_SLEEP_MS = 60_000;

/** WF-2: one task per provider issue, whatever the workflow: the key is the repository and the issue. */
export function issueKey(repositoryId: string, number: number): string {
  return `issue:${repositoryId}:${number}`;
}

/**
 * WF-2 issues trigger: polls each workflow's repository for open issues with its label. An
 * issue seen for the first time queues, in one transaction, the run that creates its task (the
 * unique key (repository, issue) is the claim: a second poll, a restart or another runner
 * queues nothing) and the run that comments on the issue with the task. The engine claims and
 * executes both. When the task's pull request merges, the issue is closed (workflow-triggers).
 */
export class WorkflowIssues {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private polling: Promise<void> = Promise.resolve();
  /** When each workflow was last polled (ms, this process's clock). */
  private readonly polledAt = new Map<string, number>();

  constructor(
    private readonly deps: Pick<Deps, "store" | "log" | "home" | "now" | "remote">,
    private readonly enqueue: Enqueue,
    private readonly queued: () => void,
  ) {}

  start(): void {
    this.stopped = false;
    void this.poll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.polling;
  }

  /** Polls every workflow whose interval has passed (all of them with `force`: a workflow was stored), then re-arms. */
  poll(force = false): Promise<void> {
    this.polling = this.polling.then(() => this.pollOnce(force)).catch((err: unknown) => this.deps.log.error({ err }, "workflow: the issues poll failed"));
    return this.polling;
  }

  private async pollOnce(force: boolean): Promise<void> {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const now = Date.parse(this.deps.now());
    let wake = now + MAX_SLEEP_MS;
    for (const w of await this.deps.store.workflows.list()) {
      const t = w.definition.triggers.issues;
      if (!t || w.stopped) continue;
      const every = t.pollSeconds * 1000;
      const last = this.polledAt.get(w.name);
      if (force || last === undefined || now - last >= every) {
        this.polledAt.set(w.name, now);
        await this.pollWorkflow(w).catch((err: unknown) => this.deps.log.warn({ err, workflow: w.name }, "workflow: the provider's issues could not be read"));
        wake = Math.min(wake, now + every);
      } else {
        wake = Math.min(wake, last + every);
      }
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.poll(), Math.max(10, wake - now));
    this.timer.unref();
  }

  private async pollWorkflow(w: WorkflowRecord): Promise<void> {
    const t = w.definition.triggers.issues!;
    const acc = await issueAccess(this.deps, t.repositoryId);
    const issues = acc.api.parseList((await acc.call(acc.api.listRequest(acc.target, t.label))).json);
    let queued = false;
    for (const issue of issues) {
      if (!Number.isInteger(issue.number) || issue.number <= 0) continue;
      const taskId = newId("task");
      const base = { taskId, entryId: null, workflow: w.name, version: w.version, step: t.step, cause: ISSUE_CAUSE };
      // Both runs or neither: the comment run carries the id of the task the first one creates.
      const created = await this.deps.store.transaction(async () => {
        const run = await this.enqueue({
          ...base,
          idemKey: issueKey(t.repositoryId, issue.number),
          actionIndex: 0,
          action: {
            action: "create_task",
            title: issue.title || `Issue #${issue.number}`,
            brief: [issue.body, issue.url].filter(Boolean).join("\n\n"),
            repositoryId: t.repositoryId,
            step: t.step,
            issue: { repositoryId: t.repositoryId, number: issue.number, url: issue.url },
          },
        });
        if (!run) return undefined;
        await this.enqueue({
          ...base,
          idemKey: `issue-comment:${t.repositoryId}:${issue.number}`,
          actionIndex: 1,
          action: {
            action: "issue_comment",
            repositoryId: t.repositoryId,
            number: issue.number,
            body: `Grove task ${taskId} was created for this issue: ${issue.title}`,
          },
        });
        return run;
      });
      queued ||= created !== undefined;
    }
    if (queued) this.queued();
  }
}
