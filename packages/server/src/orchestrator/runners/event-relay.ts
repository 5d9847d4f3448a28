import type { EventFrame } from "@grove/protocol";
import type { EventBus } from "../../domain/event-bus.js";

/** The transport between processes (PostgreSQL NOTIFY in production). */
export interface RelayTransport {
  publish(payload: string): Promise<void>;
}

/** Byte budget of one relayed frame (the transport's payload limit, with room to spare). */
const BUDGET = 7000;
const TEXT_KEEP = 2000;

interface Envelope {
  origin: string;
  frame: EventFrame;
}

/**
 * A frame small enough for the relay. A long `session.message` is cut (its text shortened,
 * its data dropped, marked `truncated`): clients of other processes read the whole message from
 * `GET /sessions/:id/messages`. Any other frame too large is not relayed (undefined).
 */
export function fitFrame(frame: EventFrame): EventFrame | undefined {
  if (Buffer.byteLength(JSON.stringify(frame)) <= BUDGET) return frame;
  if (frame.type === "session.message") {
    const data = frame.data as { sessionId: string; taskId: string; message: { text: string; data?: unknown } };
    const message = { ...data.message, text: data.message.text.slice(0, TEXT_KEEP), truncated: true };
    delete message.data;
    const cut = { ...frame, data: { ...data, message } } as EventFrame;
    if (Buffer.byteLength(JSON.stringify(cut)) <= BUDGET) return cut;
  }
  return undefined;
}

/**
 * ST-3: events reach clients of every process. Frames published here go out through the
 * transport tagged with this runner; frames from other runners are delivered to this
 * process's listeners and never sent back out.
 */
export function connectEventRelay(
  bus: EventBus,
  runnerId: string,
  transport: RelayTransport,
  onError: (e: unknown) => void,
): { receive(payload: string): void; stop(): void } {
  const off = bus.subscribe((frame) => {
    if (bus.isRemoteDelivery) return;
    const fitted = fitFrame(frame);
    if (!fitted) return;
    const envelope: Envelope = { origin: runnerId, frame: fitted };
    transport.publish(JSON.stringify(envelope)).catch(onError);
  });
  return {
    receive(payload: string) {
      try {
        const env = JSON.parse(payload) as Envelope;
        if (env.origin === runnerId || !env.frame?.type) return;
        bus.deliverRemote(env.frame);
      } catch (e) {
        onError(e);
      }
    },
    stop: off,
  };
}
