import type { CreatePullRequestBody, PullRequest } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import type { TaskRecord } from "../../domain/records.js";
import { pullRequestView, type PullRequestRecord } from "../../domain/review.js";
import { taskView } from "../../domain/views.js";
import { headCommit } from "../../git/file-lines.js";
import { pushBranch } from "../../git/push.js";
import { isAncestor } from "../../git/rebase.js";
import type { PullRequestStatus } from "../../providers/pull-requests.js";
import type { Deps } from "../context.js";
import { assertTaskWorkable } from "../lifecycle/lifecycle.js";
import { remoteOf } from "../refresh/remote-context.js";
import { doneOnMerge } from "./review-merge.js";
import { prAccess, type PrAccess } from "./review-pr-access.js";
import { callProvider, type RateBudgets } from "./review-pr-http.js";
import { notAttachedError, reviewSlots, scopeOf } from "./review-slot.js";
import { getTaskOr404 } from "../tasks/tasks.js";
import { faultPoint } from "../fault-points.js";

/** Moves the task `to` by compare-and-set from the state read (never from done back to review; never archives). */
async function moveTask(deps: Pick<Deps, "store" | "bus" | "now">, taskId: string, to: TaskRecord["state"]): Promise<void> {
  const task = await deps.store.getTask(taskId);
  if (!task || task.state === to || (to === "review" && task.state === "done")) return;
  const moved = await deps.store.setTaskStateIf(taskId, task.state, to, deps.now());
  if (moved) deps.bus.publish("task.updated", { task: taskView(moved) });
}

/** The ports (orchestrator/context.ts) createPullRequests uses. */
export type CreatePullRequestsPorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "home" | "now" | "remote">;

/**
 * `POST /tasks/:id/pull-requests`: per remote repository, push the task branch through the
 * route's credential (never forced; after a rebase only `--force-with-lease` against the commit
 * Grove last pushed), then open the pull request through the provider's REST API — or, when
 * one is already recorded, only push. The task moves to `review`. `forcePush: false` (a
 * workflow's `pr` action that does not allow it) refuses the lease-guarded force-push instead.
 */
export async function createPullRequests(
  deps: CreatePullRequestsPorts,
  budgets: RateBudgets,
  taskId: string,
  body: CreatePullRequestBody,
  opts: { forcePush?: boolean } = {},
): Promise<PullRequest[]> {
  await assertTaskWorkable(deps, taskId);
  const out: PullRequest[] = [];
  for (const slot of await reviewSlots(deps, taskId, body.repositoryId, notAttachedError())) {
    const scope = scopeOf(slot);
    const access = await prAccess(deps, slot.repository, scope);
    const head = await headCommit(deps.git, slot.worktree);
    const existing = await deps.store.review.getPullRequest(taskId, slot.repository.id);
    const lease = existing && !(await isAncestor(deps.git, slot.worktree, existing.pushedCommit, head)) ? existing.pushedCommit : undefined;
    // WF-2.15: an automation force-pushes only when its workflow says so explicitly.
    if (lease && opts.forcePush === false) {
      throw new AppError(
        "push_rejected",
        `the branch of repository ${slot.repository.name} was rewritten since Grove's last push (${lease.slice(0, 12)}); updating the pull request needs a force-push, which the workflow does not allow (forcePush: true)`,
        { ...scope, forcePush: false },
      );
    }
    await deps.git.withRepoLock(slot.repository.path, () =>
      pushBranch(deps.git, {
        cwd: slot.worktree,
        branch: slot.branch,
        access: access.push,
        remote: access.remote,
        ...(lease && { lease }),
        timeoutMs: remoteOf(deps).refreshTimeoutMs,
        scope,
        repository: slot.repository.name,
      }),
    );
    const now = deps.now();
    let rec: PullRequestRecord;
    if (existing) {
      rec = { ...existing, headCommit: head, pushedCommit: head, updatedAt: now };
    } else {
      const authorization = access.api.authorization(access.credential);
      const call = { authorization, budgets, scope, repository: slot.repository.name };
      const branches = { head: slot.branch, base: slot.attachment.baseBranch };
      // Asked first so that a create whose record was never written (crash after the provider's
      // 201) is adopted on the retry rather than refused as a duplicate.
      const found = access.api.parseFound(access.target, (await callProvider(access.api.findOpenRequest(access.target, branches), call)).json);
      let created = found;
      if (!created) {
        const req = access.api.createRequest(access.target, {
          title: body.title ?? slot.task.title,
          body: body.body ?? slot.task.description,
          draft: body.draft ?? false,
          ...branches,
        });
        created = access.api.parseCreated(access.target, (await callProvider(req, call)).json);
        await faultPoint("pr.after_create");
      }
      if (!Number.isInteger(created.number) || created.number <= 0)
        throw new AppError("provider_failed", `the provider answered no pull-request number for repository ${slot.repository.name}`, scope);
      rec = {
        taskId,
        repositoryId: slot.repository.id,
        provider: slot.repository.provider,
        ...created,
        headCommit: head,
        checks: "none",
        reviewDecision: null,
        branch: slot.branch,
        pushedCommit: head,
        etags: {},
        checkedAt: null,
        createdAt: now,
        updatedAt: now,
      };
    }
    await deps.store.review.upsertPullRequest(rec);
    const view = pullRequestView(rec);
    deps.bus.publish("pull_request.updated", { taskId, pullRequest: view });
    out.push(view);
  }
  await moveTask(deps, taskId, "review");
  return out;
}

export async function listPullRequests(deps: Pick<Deps, "store">, taskId: string): Promise<PullRequest[]> {
  await getTaskOr404(deps, taskId);
  return (await deps.store.review.listPullRequests(taskId)).map(pullRequestView);
}

/**
 * Refreshes one recorded pull request with conditional requests: when every answer is `304`
 * nothing changed and nothing is written; otherwise the unchanged answers are fetched again in
 * full and the status is written by compare-and-set on `updatedAt`. A merge moves the task to
 * `done` (GROVE_REVIEW_DONE_ON_MERGE).
 */
export async function refreshOne(
  deps: Pick<Deps, "store" | "bus" | "home" | "now" | "remote" | "tuning">,
  budgets: RateBudgets,
  pr: PullRequestRecord,
  access?: PrAccess,
): Promise<PullRequestRecord> {
  const repo = await deps.store.getRepository(pr.repositoryId);
  if (!repo) return pr;
  const scope = { taskId: pr.taskId, repositoryId: pr.repositoryId };
  const a = access ?? (await prAccess(deps, repo, scope));
  const authorization = a.api.authorization(a.credential);
  const requests = a.api.statusRequests(a.target, pr.number, pr.headCommit);
  const answers = await Promise.all(
    requests.map((req) => callProvider(req, { authorization, budgets, scope, repository: repo.name, ...(pr.etags[req.url] && { etag: pr.etags[req.url]! }) })),
  );
  if (answers.every((x) => x.status === 304)) return pr;
  const full = await Promise.all(
    answers.map((x, i) => (x.status === 304 ? callProvider(requests[i]!, { authorization, budgets, scope, repository: repo.name }) : x)),
  );
  const etags: Record<string, string> = {};
  full.forEach((x, i) => x.etag && (etags[requests[i]!.url] = x.etag));
  const status: PullRequestStatus = a.api.parseStatus(
    a.target,
    pr.number,
    full.map((x) => x.json),
  );
  const next: PullRequestRecord = {
    ...pr,
    state: status.state,
    draft: status.draft,
    checks: status.checks,
    reviewDecision: status.reviewDecision,
    headCommit: status.headCommit || pr.headCommit,
    url: status.url || pr.url,
    etags,
    checkedAt: deps.now(),
    updatedAt: deps.now(),
  };
  const written = await deps.store.review.updatePullRequestIf(next, pr.updatedAt);
  if (!written) return (await deps.store.review.getPullRequest(pr.taskId, pr.repositoryId)) ?? pr;
  deps.bus.publish("pull_request.updated", { taskId: pr.taskId, pullRequest: pullRequestView(written) });
  if (written.state === "merged" && pr.state !== "merged" && doneOnMerge(deps)) await moveTask(deps, pr.taskId, "done");
  return written;
}

/** `POST /tasks/:id/pull-requests/refresh`: every pull request of the task, on demand. */
export async function refreshPullRequests(
  deps: Pick<Deps, "store" | "bus" | "home" | "now" | "remote" | "tuning">,
  budgets: RateBudgets,
  taskId: string,
): Promise<PullRequest[]> {
  await getTaskOr404(deps, taskId);
  const out: PullRequest[] = [];
  for (const pr of await deps.store.review.listPullRequests(taskId)) out.push(pullRequestView(await refreshOne(deps, budgets, pr)));
  return out;
}
