import { type EventFrame, type Message, type Session, toolStatusStage } from "@grove/protocol";
import WebSocket from "ws";
import type { GroveClient } from "../client.js";
import type { Output } from "../output.js";
import { sessionStateWords } from "../output-words.js";
import { describeMessage } from "./session-messages.js";
import { SETTLED_STATES } from "./session-wait.js";

/** What `session show --follow` ends with: the session as its turn left it, and every message. */
export interface Followed {
  session: Session;
  messages: Message[];
}

/** How often the follower re-reads over HTTP once the event stream is gone (or never opened). */
const POLL_MS = 500;

/**
 * CLI-15 `grove session show <id> --follow`: prints the session and its messages, then streams
 * what the running turn adds (agent text as it arrives, tool calls as they change) until the
 * session settles. Driven by the event stream (`session.message`, `session.state_changed`);
 * the socket is opened before the first read so nothing falls between the read and the stream.
 * Should the stream close early (a server restart), it goes on by re-reading over HTTP, so
 * the command still ends when the turn does. With `--json` nothing streams: the caller prints
 * one document at the end.
 */
export async function followSession(client: GroveClient, out: Output, token: string | undefined, sessionId: string): Promise<Followed> {
  const id = { id: sessionId };
  // Without ?limit the messages are a plain array (the other shape of the response is a page).
  const messagesOf = async () => (await client.call("listSessionMessages", { params: id })) as Message[];
  const printer = new TurnPrinter((text) => out.stream(text));
  const messages = new Map<string, Message>();
  const take = messageTaker(printer, messages);
  const stream = await openEvents(client.base, token);
  const [first, history] = await Promise.all([client.call("getSession", { params: id }), messagesOf()]);
  let session = first;
  printer.lines(describeHeader(session));
  for (const m of history) take(m);

  await new Promise<void>((resolve, reject) => {
    let done = false;
    const finish = (s: Session) => {
      if (done) return;
      done = true;
      session = s;
      stream?.close();
      resolve();
    };
    const poll = async () => {
      try {
        while (!done) {
          const [s, all] = await Promise.all([client.call("getSession", { params: id }), messagesOf()]);
          for (const m of all) take(m);
          if (SETTLED_STATES.has(s.state)) return finish(s);
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
      } catch (e) {
        done = true;
        reject(e);
      }
    };
    if (!stream) return void poll();
    stream.onFrame = (f) => {
      if (done) return;
      if (f.type === "session.message") {
        const d = f.data as EventFrame<"session.message">["data"];
        if (d.sessionId === sessionId) take(d.message);
      } else if (f.type === "session.state_changed" || f.type === "session.updated") {
        const s = (f.data as EventFrame<"session.state_changed">["data"]).session;
        if (s.id === sessionId && SETTLED_STATES.has(s.state)) finish(s);
      }
    };
    stream.onClose = () => void poll();
    // Frames queued while the history was read are handled now; then: already settled?
    stream.flush();
    if (SETTLED_STATES.has(session.state)) finish(session);
  });

  // The last frames of a turn may trail its state change: one final read has them all.
  const final = await messagesOf();
  for (const m of final) take(m);
  printer.end();
  printer.lines([`state: ${sessionStateWords(session.state)}`]);
  return { session, messages: [...messages.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt)) };
}

/**
 * Records and prints a message unless it is behind the version already taken. Frames that
 * arrive while the history is read are handled after it, and such a frame can be older than the
 * history (a tool call still pending that the history shows completed); taken as it comes, it
 * would print the tool call going back to pending and forward again.
 */
export function messageTaker(printer: TurnPrinter, messages: Map<string, Message>): (m: Message) => void {
  return (m) => {
    const known = messages.get(m.id);
    if (known && isBehind(m, known)) return;
    messages.set(m.id, m);
    printer.message(m);
  };
}

/**
 * Whether `next` is an older version of the message `known`: a tool call whose status comes
 * earlier, or a text that is a strict beginning of the known text (streamed text only grows).
 */
export function isBehind(next: Message, known: Message): boolean {
  if (next.role === "tool") return toolProgress(next) < toolProgress(known);
  return next.text.length < known.text.length && known.text.startsWith(next.text);
}

function toolProgress(m: Message): number {
  return toolStatusStage((m.data as { status?: unknown } | undefined)?.status);
}

function describeHeader(s: Session): string[] {
  return [`session ${s.id}  task ${s.taskId}  agent ${s.agent}`, `state: ${sessionStateWords(s.state)}`];
}

/**
 * Writes a growing transcript: a streamed message (agent text, thoughts) prints only what it
 * gained since last time, on its own `role: ` line; any other message prints in `session show`'s
 * form whenever its text or status changes (a tool call goes pending → completed).
 */
export class TurnPrinter {
  readonly #write: (text: string) => void;
  readonly #printed = new Map<string, string>();
  /** The streamed message whose line is still open (no newline written yet). */
  #open: string | undefined;

  constructor(write: (text: string) => void) {
    this.#write = write;
  }

  message(m: Message): void {
    if (m.role === "agent" || m.role === "thought") return this.#streamed(m);
    const text = describeMessage(m).join("\n");
    if (this.#printed.get(m.id) === text) return;
    this.#printed.set(m.id, text);
    this.end();
    this.#write(text + "\n");
  }

  lines(lines: readonly string[]): void {
    this.end();
    for (const l of lines) this.#write(l + "\n");
  }

  /** Closes the open line, if any. */
  end(): void {
    if (this.#open === undefined) return;
    this.#open = undefined;
    this.#write("\n");
  }

  #streamed(m: Message): void {
    const prefix = `${m.role}: `;
    // Trailing newlines are held back: the next chunk may continue the line, or nothing follows.
    const text = m.text.replace(/\n+$/, "");
    const printed = this.#printed.get(m.id);
    if (printed === text) return;
    this.#printed.set(m.id, text);
    let delta: string;
    if (this.#open === m.id && printed !== undefined && text.startsWith(printed)) {
      delta = text.slice(printed.length);
    } else {
      this.end();
      this.#write(prefix);
      this.#open = m.id;
      // An earlier message that grew after another began continues on a line of its own.
      delta = printed !== undefined && text.startsWith(printed) ? text.slice(printed.length) : text;
    }
    this.#write(delta.replace(/\n/g, "\n" + " ".repeat(prefix.length)));
  }
}

interface EventSocket {
  onFrame: (f: EventFrame) => void;
  onClose: () => void;
  /** Hands the frames received so far to `onFrame`; later ones go there directly. */
  flush(): void;
  close(): void;
}

/** Opens `/api/v1/events`; undefined when it cannot (the follower then reads over HTTP). */
async function openEvents(base: string, token: string | undefined): Promise<EventSocket | undefined> {
  const url = `${base.replace(/^http/, "ws")}/events`;
  let ws: WebSocket;
  try {
    ws = new WebSocket(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    await new Promise<void>((res, rej) => {
      ws.once("open", () => res());
      ws.once("error", rej);
    });
  } catch {
    return undefined;
  }
  const queued: EventFrame[] = [];
  let flushed = false;
  let closedEarly = false;
  const socket: EventSocket = {
    onFrame: () => undefined,
    onClose: () => undefined,
    flush() {
      flushed = true;
      for (const f of queued.splice(0)) socket.onFrame(f);
      if (closedEarly) socket.onClose();
    },
    close() {
      ws.removeAllListeners("close");
      ws.close();
    },
  };
  ws.on("message", (d: WebSocket.RawData) => {
    let f: EventFrame;
    try {
      f = JSON.parse(d.toString()) as EventFrame;
    } catch {
      return;
    }
    if (flushed) socket.onFrame(f);
    else queued.push(f);
  });
  ws.on("error", () => undefined);
  ws.on("close", () => {
    if (flushed) socket.onClose();
    else closedEarly = true;
  });
  return socket;
}
