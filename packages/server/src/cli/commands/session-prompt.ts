import type { Command } from "commander";
import type { Session } from "@grove/protocol";
import { CliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";
import { sessionStateWords } from "../output-words.js";
import { turnFailure, waitForSession } from "./session-wait.js";

/**
 * `grove session prompt <sessionId> [text] [--comments all|<ids>] [--queue] [--wait]` (review
 * comments composed in; `--queue` queues a follow-up during a running turn, WEB-37).
 */
export function registerSessionPromptCommand(session: Command): void {
  withCommonOptions(
    session
      .command("prompt <sessionId> [text]")
      .description("send a prompt (409 session_busy while a turn runs); --comments sends review comments with it")
      .option("--comments <all|ids>", "review comments to send: all open ones of the session's task, or comma-separated ids")
      .option("--queue", "while a turn runs, queue the prompt; it is sent when the turn ends (a waiting session takes it at once)")
      .option("--wait", "wait until the turn ends; exit 1 if the turn or the session failed"),
  ).action(async (sessionId: string, text: string | undefined, opts: { comments?: string; queue?: boolean; wait?: boolean }, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const sid = { id: sessionId };
    let commentIds: string[] | undefined;
    if (opts.comments === "all") {
      const s = await client.call("getSession", { params: sid });
      commentIds = (await client.call("listReviewComments", { params: { id: s.taskId } })).filter((c) => c.state === "open").map((c) => c.id);
      if (commentIds.length === 0) throw new CliError("invalid_arguments", "the session's task has no open comments");
    } else if (opts.comments !== undefined) {
      commentIds = opts.comments
        .split(",")
        .map((c) => c.trim())
        .filter(Boolean);
    }
    if (text === undefined && !commentIds) throw new CliError("invalid_arguments", "give a prompt text, --comments, or both");
    if (opts.queue && (text === undefined || commentIds)) throw new CliError("invalid_arguments", "--queue takes a prompt text, not --comments");
    if (opts.queue && opts.wait) throw new CliError("invalid_arguments", "--queue and --wait do not go together: a queued prompt's turn starts later");
    const body: Session | undefined = await client.call("promptSession", {
      params: sid,
      body: { ...(text !== undefined && { prompt: text }), ...(commentIds && { commentIds }), ...(opts.queue && { queue: true }) },
    });
    if (opts.queue) {
      const queued = body?.queued?.length ?? 0;
      out.result(body ?? { ok: true, sessionId, action: "prompt" }, () => [
        queued > 0 ? `queued for session ${sessionId} (${queued} waiting for the turn to end)` : `prompt sent to session ${sessionId}`,
      ]);
      return;
    }
    if (opts.wait) {
      // The answer is the session as the prompt left it (`running`): poll from there.
      const settled = await waitForSession(client, out, body ?? (await client.call("getSession", { params: sid })));
      out.result(settled, () => [`${settled.id}  ${sessionStateWords(settled.state)}`]);
      const failure = await turnFailure(client, settled);
      if (failure) throw failure;
      return;
    }
    out.result(body ?? { ok: true, sessionId, action: "prompt" }, () => [
      `prompt sent to session ${sessionId}${commentIds ? ` with ${commentIds.length} comment(s)` : ""}`,
    ]);
  });
}
