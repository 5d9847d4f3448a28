/** A counting semaphore: the global cap on concurrent git processes (WT-6). */
export class Semaphore {
  private available: number;
  private readonly waiters: (() => void)[] = [];

  constructor(permits: number) {
    this.available = permits;
  }

  /** Resolves with a release function once a permit is free; call it exactly once. */
  async acquire(): Promise<() => void> {
    if (this.available > 0) {
      this.available -= 1;
    } else {
      // The releaser hands its permit straight to us, so `available` stays untouched.
      await new Promise<void>((r) => this.waiters.push(r));
    }
    return () => {
      const next = this.waiters.shift();
      if (next) next();
      else this.available += 1;
    };
  }
}
