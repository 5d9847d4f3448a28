/**
 * Sessions of this process that are bringing their workspace and agent back (prompt/resume
 * after a restart or exit, environment restore): between the first check of the task and the
 * spawned agent there are awaits a cleanup job could slip into. Cleanup waits until no such
 * launch of its task is in flight; each launch re-checks the task after it restored the
 * workspace and after the agent started, and stops its agent when the task is being cleaned.
 */
export class LaunchRegistry {
  private readonly inFlight = new Map<string, number>();

  /** Runs `fn` as one in-flight launch of `taskId`. */
  async run<T>(taskId: string, fn: () => Promise<T>): Promise<T> {
    this.inFlight.set(taskId, (this.inFlight.get(taskId) ?? 0) + 1);
    try {
      return await fn();
    } finally {
      const n = (this.inFlight.get(taskId) ?? 1) - 1;
      if (n <= 0) this.inFlight.delete(taskId);
      else this.inFlight.set(taskId, n);
    }
  }

  /** Launches of the task in flight in this process. */
  count(taskId: string): number {
    return this.inFlight.get(taskId) ?? 0;
  }
}
