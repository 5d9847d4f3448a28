import { SerialChain } from "../../domain/serial-chain.js";
import type { TurnUsage } from "../../agents/runtime.js";
import type { Deps } from "../context.js";

/** What a session's agent reported since the last write: the latest readings and the tokens to add. */
export interface PendingUsage {
  context?: { used: number; size: number };
  cost?: { amount: number; currency: string };
  tokens?: TurnUsage;
}

/**
 * USE-1: one session's usage reports on their way to the store. Reports are coalesced: while a
 * write runs, later `usage_update`s replace the pending context and cost (both are cumulative
 * readings) and turn tokens add up, so a burst of updates costs as many writes as the database
 * takes, never one per update. Writes are chained, in arrival order; `flush()` waits for them.
 */
export class SessionUsageRecorder {
  private pending: PendingUsage = {};
  private queued = false;
  private readonly chain = new SerialChain((err: unknown) => this.deps.log.error({ err }, "recording usage failed"));

  constructor(
    private readonly deps: Pick<Deps, "log">,
    private readonly write: (p: PendingUsage) => Promise<void>,
  ) {}

  /** ACP `usage_update`. */
  update(e: { used: number; size: number; cost?: { amount: number; currency: string } }): void {
    if (!(e.used >= 0) || !(e.size >= 0)) return;
    this.pending.context = { used: Math.round(e.used), size: Math.round(e.size) };
    if (e.cost && e.cost.amount >= 0) this.pending.cost = e.cost;
    this.schedule();
  }

  /** A turn's `PromptResponse.usage`. */
  turnEnded(t: TurnUsage | undefined): void {
    if (!t) return;
    const p = this.pending.tokens;
    this.pending.tokens = p
      ? {
          tokensIn: p.tokensIn + t.tokensIn,
          tokensOut: p.tokensOut + t.tokensOut,
          cacheRead: p.cacheRead + t.cacheRead,
          cacheWrite: p.cacheWrite + t.cacheWrite,
        }
      : t;
    this.schedule();
  }

  /** Resolves once every report so far is written (and its budget checked). */
  async flush(): Promise<void> {
    await this.chain.flush();
  }

  private schedule(): void {
    if (this.queued) return;
    this.queued = true;
    this.chain.enqueue(() => {
      this.queued = false;
      const p = this.pending;
      this.pending = {};
      return this.write(p);
    });
  }
}
