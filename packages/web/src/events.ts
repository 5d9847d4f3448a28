/**
 * The event stream (`/api/v1/events`): one WebSocket for the page, reconnected with backoff.
 * Views subscribe to event types and unsubscribe when they unmount. After a reconnect,
 * listeners of "reconnected" refetch, because frames sent while disconnected are lost.
 */
import type { EventFrame, EventMap, EventType } from "@grove/protocol";

type Handler<T extends EventType> = (data: EventMap[T], frame: EventFrame<T>) => void;
type Special = "connected" | "reconnected" | "disconnected";

export class EventStream {
  private ws: WebSocket | undefined;
  private readonly handlers = new Map<string, Set<(data: unknown, frame: unknown) => void>>();
  private attempts = 0;
  private everConnected = false;
  private closed = false;

  /** Subscribes to one event type; returns the unsubscribe function. */
  on<T extends EventType>(type: T, fn: Handler<T>): () => void;
  on(type: Special, fn: () => void): () => void;
  on(type: string, fn: (data: never, frame: never) => void): () => void {
    const set = this.handlers.get(type) ?? new Set();
    this.handlers.set(type, set);
    const f = fn as (data: unknown, frame: unknown) => void;
    set.add(f);
    return () => set.delete(f);
  }

  connect(): void {
    this.closed = false;
    // Authenticated by the page's HttpOnly cookie (SEC-6): the token is never part of a URL.
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/v1/events`;
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempts = 0;
      this.emit(this.everConnected ? "reconnected" : "connected", undefined, undefined);
      this.everConnected = true;
    };
    ws.onmessage = (m) => {
      let frame: EventFrame;
      try {
        frame = JSON.parse(String(m.data)) as EventFrame;
      } catch {
        return;
      }
      this.emit(frame.type, frame.data, frame);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.emit("disconnected", undefined, undefined);
      if (this.closed) return;
      // 0.5 s, 1 s, 2 s … capped at 10 s: a restarting server is back within a few seconds.
      const delay = Math.min(10_000, 500 * 2 ** this.attempts++);
      setTimeout(() => this.connect(), delay);
    };
  }

  close(): void {
    this.closed = true;
    this.ws?.close();
  }

  private emit(type: string, data: unknown, frame: unknown): void {
    for (const fn of [...(this.handlers.get(type) ?? [])]) {
      try {
        fn(data, frame);
      } catch (e) {
        // A broken view must not stop the other listeners; the console is the browser's log.
        console.error(`event handler for ${type} failed`, e);
      }
    }
  }
}
