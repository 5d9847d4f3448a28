/**
 * MCP-2: each session's MCP calls are rate-limited — a sliding window of `calls` per
 * `windowMs` — so a looping agent cannot flood the transcript, the inbox or the board.
 */
export class CallRateLimit {
  private readonly seen = new Map<string, number[]>();

  constructor(
    private readonly calls: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one call of the session: 0 when allowed, else the ms until the next is. */
  take(sessionId: string): number {
    const t = this.now();
    const recent = (this.seen.get(sessionId) ?? []).filter((at) => t - at < this.windowMs);
    if (recent.length >= this.calls) {
      this.seen.set(sessionId, recent);
      return Math.max(1, this.windowMs - (t - recent[0]!));
    }
    recent.push(t);
    this.seen.set(sessionId, recent);
    return 0;
  }

  forget(sessionId: string): void {
    this.seen.delete(sessionId);
  }
}
