import WebSocket from "ws";
import type { EventFrame } from "@grove/protocol";
import type { Output } from "./output.js";

/**
 * RR-1 in the CLI: while `grove repo add <url>` waits for its clone, progress frames
 * (`repository.clone_progress`) are printed on stderr (the repository id is not known before the
 * answer, so every clone's progress shows; one registration at a time is the common case). Best effort: without the
 * event stream the command still works, only quieter. Returns a function that stops listening.
 */
export async function followCloneProgress(base: string, token: string | undefined, out: Output, firstLine?: string): Promise<() => void> {
  const wsUrl = `${base.replace(/^http/, "ws").replace(/\/api\/v1\/?$/, "")}/api/v1/events`;
  let ws: WebSocket;
  try {
    ws = new WebSocket(wsUrl, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    await new Promise<void>((res, rej) => {
      ws.once("open", () => res());
      ws.once("error", rej);
    });
  } catch {
    return () => undefined;
  }
  let last = "";
  let started = firstLine === undefined;
  ws.on("message", (d) => {
    try {
      const f = JSON.parse(d.toString()) as EventFrame;
      if (f.type !== "repository.clone_progress") return;
      if (!started) {
        started = true;
        out.progress(firstLine!);
      }
      const p = f.data as EventFrame<"repository.clone_progress">["data"];
      const line = `${p.phase}: ${p.percent ?? "?"}%`;
      if (line !== last && (p.percent === null || p.percent % 10 === 0 || p.percent === 100)) out.progress(line);
      last = line;
    } catch {
      // not a frame we understand
    }
  });
  ws.on("error", () => undefined);
  return () => ws.close();
}
