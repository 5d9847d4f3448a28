import type { EventFrame, EventMap, EventType } from "@grove/protocol";

type Listener = (frame: EventFrame) => void;

/**
 * In-process publish/subscribe for the event frames of CONTRACT.md. Listeners run
 * synchronously; a throwing listener is isolated so one bad WebSocket cannot stop the others.
 * Cross-process fan-out (ST-3) plugs in as one more listener.
 */
export class EventBus {
  private readonly listeners = new Set<Listener>();

  publish<T extends EventType>(type: T, data: EventMap[T]): void {
    const frame: EventFrame<T> = { type, data, at: new Date().toISOString() };
    for (const l of this.listeners) {
      try {
        l(frame as EventFrame);
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
