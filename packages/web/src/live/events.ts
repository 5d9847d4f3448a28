/**
 * The event stream (`/api/v1/events`): one WebSocket for the page, reconnected with backoff
 * (0.5 s doubling to 10 s). Auth rides on the `grove_token` cookie, never on the URL. After a
 * reconnect, "reconnected" listeners re-read, because frames sent meanwhile are lost.
 */
import type { EventFrame, EventMap, EventType } from "@grove/protocol";

type Handler<T extends EventType> = (data: EventMap[T], frame: EventFrame<T>) => void;
/** Connection signals, plus frames of types the protocol package does not list yet (comments, PRs). */
type Special = "connected" | "reconnected" | "disconnected";

export class EventStream {
  private ws: WebSocket | undefined;
  private readonly handlers = new Map<string, Set<(data: unknown, frame: unknown) => void>>();
  private attempts = 0;
  private everConnected = false;
  private closed = false;
  /** Whether the socket is open now (the header's live badge). */
  live = false;

  /** Subscribes to one event type; returns the unsubscribe function. */
  on<T extends EventType>(type: T, fn: Handler<T>): () => void;
  on(type: Special, fn: () => void): () => void;
  on(type: string, fn: (data: never, frame: never) => void): () => void;
  on(type: string, fn: (data: never, frame: never) => void): () => void {
    const set = this.handlers.get(type) ?? new Set();
    this.handlers.set(type, set);
    const f = fn as (data: unknown, frame: unknown) => void;
    set.add(f);
    return () => set.delete(f);
  }

  connect(): void {
    this.closed = false;
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/v1/events`);
    this.ws = ws;
    ws.onopen = () => {
      this.attempts = 0;
      this.live = true;
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
      this.live = false;
      this.emit("disconnected", undefined, undefined);
      if (this.closed) return;
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
        // A broken listener must not stop the others.
        console.warn(`event handler for ${type} failed`, e);
      }
    }
  }
}

/** The page's one stream. */
export const events = new EventStream();
