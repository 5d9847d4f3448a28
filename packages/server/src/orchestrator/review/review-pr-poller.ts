import type { Deps } from "../context.js";
import { refreshOne } from "./review-pr.js";
import { prAccess } from "./review-pr-access.js";
import type { RateBudgets } from "./review-pr-http.js";

/** Calls of a provider's budget the background refresher leaves for people's own actions. */
const RESERVE = 100;

/** The ports (orchestrator/context.ts) PullRequestPoller uses. */
export type PullRequestPollerPorts = Pick<Deps, "store" | "bus" | "log" | "home" | "now" | "remote" | "tuning">;

/**
 * Background refresh of open pull requests (docs/decisions/2026-11-30-pr-status-polling.md):
 * every `intervalMs` (GROVE_PR_REFRESH_MS, default 60 s; 0 turns it off), one request set per
 * open pull request with ETags, skipped while the provider's budget is below the reserve.
 */
export class PullRequestPoller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly deps: PullRequestPollerPorts,
    private readonly budgets: RateBudgets,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.tick().finally(() => (this.running = undefined));
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Whether the background refresh is scheduled (never when GROVE_PR_REFRESH_MS is 0). */
  get active(): boolean {
    return this.timer !== undefined;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass; exported for tests. Errors are logged per pull request (typed, credential-free). */
  async tick(): Promise<void> {
    for (const pr of await this.deps.store.review.listPullRequests()) {
      if (pr.state !== "open" || !this.timer) continue;
      const repo = await this.deps.store.getRepository(pr.repositoryId);
      if (!repo) continue;
      try {
        const access = await prAccess(this.deps, repo, { taskId: pr.taskId, repositoryId: repo.id });
        const urls = access.api.statusRequests(access.target, pr.number, pr.headCommit).map((r) => r.url);
        if (!urls.every((u) => this.budgets.allows(u, RESERVE))) continue;
        await refreshOne(this.deps, this.budgets, pr, access);
      } catch (e) {
        this.deps.log.warn(
          { taskId: pr.taskId, repositoryId: pr.repositoryId, code: (e as { code?: string }).code, err: (e as Error).message },
          "pull request refresh failed",
        );
      }
    }
  }
}
