/**
 * Sessions of this process that are bringing their workspace and agent back (prompt/resume
 * after a restart or exit, environment restore): between the first check of the task and the
 * spawned agent there are awaits a cleanup job could slip into. Cleanup waits until no such
 * launch of its task is in flight; each launch re-checks the task after it restored the
 * workspace and after the agent started, and stops its agent when the task is being cleaned.
 */
export class LaunchRegistry {
  private readonly inFlight = new Map<string, number>();
  /** Launches a request started (a new session, an agent brought back, a restore), until each settles. */
  private readonly followed = new Set<Promise<void>>();

  /**
   * SES-5.9: follows a launch until it settles, so that the server's stop can wait for it
   * ({@link settled}); returns `launch` unchanged.
   */
  follow<T>(launch: Promise<T>): Promise<T> {
    const done = launch.then(
      () => undefined,
      () => undefined,
    );
    this.followed.add(done);
    void done.then(() => this.followed.delete(done));
    return launch;
  }

  /**
   * SES-5.9, LIVE-1: resolves once every followed launch has settled, or after `ms`; true when
   * all settled. The stop waits here (after the agent runtime refuses new starts) so that no
   * launch goes on making worktrees or preparing a sandbox in the home after the stop released it.
   */
  async settled(ms: number): Promise<boolean> {
    if (this.followed.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((res) => (timer = setTimeout(() => res(false), ms)));
    try {
      return await Promise.race([Promise.all([...this.followed]).then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs `fn` as one in-flight launch of `taskId` (followed, so the stop waits for it too). */
  run<T>(taskId: string, fn: () => Promise<T>): Promise<T> {
    this.inFlight.set(taskId, (this.inFlight.get(taskId) ?? 0) + 1);
    return this.follow(
      (async () => {
        try {
          return await fn();
        } finally {
          const n = (this.inFlight.get(taskId) ?? 1) - 1;
          if (n <= 0) this.inFlight.delete(taskId);
          else this.inFlight.set(taskId, n);
        }
      })(),
    );
  }

  /** Launches of the task in flight in this process. */
  count(taskId: string): number {
    return this.inFlight.get(taskId) ?? 0;
  }
}
