/**
 * Work run one piece at a time, in arrival order, each piece after the previous one settled: the
 * database sees a session's (or the inbox's) writes in the order the events came. A failing piece
 * is reported and the chain goes on.
 */
export class SerialChain {
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly onError: (err: unknown) => void) {}

  enqueue(fn: () => Promise<void> | void): void {
    this.tail = this.tail.then(fn).catch(this.onError);
  }

  /** Resolves once every piece is done, including pieces queued while it waited. */
  async flush(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.tail;
      await seen;
    } while (seen !== this.tail);
  }
}
