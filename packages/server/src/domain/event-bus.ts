import type { EventFrame, EventMap, EventType } from "@grove/protocol";

type Listener = (frame: EventFrame) => void;

/**
 * In-process publish/subscribe for the event frames of `@grove/protocol`. Listeners run
 * synchronously; a throwing listener is isolated so one bad WebSocket cannot stop the others.
 * Cross-process fan-out (ST-3) plugs in as one more listener.
 */
export class EventBus {
  private readonly listeners = new Set<Listener>();
  private remote = false;

  publish<T extends EventType>(type: T, data: EventMap[T]): void {
    this.deliver({ type, data, at: new Date().toISOString() } as EventFrame);
  }

  /**
   * Delivers a frame to this process's listeners only: for what every process derives by
   * itself (a runner whose heartbeat went stale), so the relay does not multiply it.
   * Listeners see it as `isRemoteDelivery`, like a frame from another process.
   */
  publishLocal<T extends EventType>(type: T, data: EventMap[T]): void {
    this.deliverRemote({ type, data, at: new Date().toISOString() } as EventFrame);
  }

  /**
   * Delivers a frame another server process published (ST-3). While it is delivered
   * `isRemoteDelivery` is true, so the relay that brought it does not send it back out.
   */
  deliverRemote(frame: EventFrame): void {
    this.remote = true;
    try {
      this.deliver(frame);
    } finally {
      this.remote = false;
    }
  }

  /** True only while a frame from another process is being delivered (listeners run synchronously). */
  get isRemoteDelivery(): boolean {
    return this.remote;
  }

  private deliver(frame: EventFrame): void {
    for (const l of this.listeners) {
      try {
        l(frame);
      } catch {
        // a listener's failure is its own business
      }
    }
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
