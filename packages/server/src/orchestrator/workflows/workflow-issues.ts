import { newId } from "../../domain/ids.js";
import type { WorkflowRecord } from "../../domain/workflow.js";
import type { Deps } from "../context.js";
import { issueAccess } from "./workflow-issue-actions.js";
import { type Enqueue, type Look, PollIntervals, WorkflowPoller } from "./workflow-poller.js";

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
export class WorkflowIssues extends WorkflowPoller<Pick<Deps, "store" | "log" | "home" | "now" | "remote">> {
  private readonly intervals = new PollIntervals((w) => w.definition.triggers.issues?.pollSeconds);

  constructor(deps: Pick<Deps, "store" | "log" | "home" | "now" | "remote">, enqueue: Enqueue, queued: () => void) {
    super(deps, enqueue, queued, "workflow: the issues poll failed");
  }

  /** Polls every workflow whose interval has passed (all of them with `force`: a workflow was stored). */
  protected async look(now: number, force: boolean): Promise<Look> {
    const { due, wake } = this.intervals.due(await this.deps.store.workflows.list(), now, force, now + MAX_SLEEP_MS);
    let queued = false;
    for (const w of due) {
      queued = (await this.guarded(() => this.pollWorkflow(w), { workflow: w.name }, "workflow: the provider's issues could not be read")) || queued;
    }
    return { queued, wake };
  }

  /** Queues the runs of each labeled issue not seen before; true when it queued any. */
  private async pollWorkflow(w: WorkflowRecord): Promise<boolean> {
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
    return queued;
  }
}
