import type { Command } from "commander";
import type { CreateSessionBody, Session } from "@grove/protocol";
import { CliError, isCliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";
import { waitForSession } from "./session-wait.js";

interface TaskStartOptions {
  agent?: string;
  prompt?: string;
  wait?: boolean;
}

/** `grove task start <taskId> [--agent NAME] [--prompt TEXT] [--wait]`. */
export function registerTaskStartCommand(task: Command): void {
  withCommonOptions(
    task
      .command("start <taskId>")
      .description("start a new agent session on the task (the first one materializes its worktrees)")
      .option("--agent <name>", "agent profile (see GET /api/v1/agents), e.g. scripted, claude, codex")
      .option("--prompt <text>", "first prompt; for the scripted agent, one command per line")
      .option("--wait", "wait until the first turn ends; exit 1 if the session fails"),
  ).action(async (taskId: string, opts: TaskStartOptions, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const id = encodeURIComponent(taskId);
    // Only the first session materializes; later ones attach to the existing worktrees.
    const env = await client.get<{ status: string }>(`/tasks/${id}/environment`).catch((e: unknown) => {
      if (isCliError(e) && e.status === 404) return undefined;
      throw e;
    });
    out.progress(env && env.status === "ready" ? "attaching to the task's workspace…" : "materializing workspace…");
    const body: CreateSessionBody = {};
    if (opts.agent !== undefined) body.agent = opts.agent;
    if (opts.prompt !== undefined) body.prompt = opts.prompt;
    let session = await client.post<Session>(`/tasks/${id}/sessions`, body);
    out.progress(`session ${session.id}: ${session.state}`);
    if (opts.wait) session = await waitForSession(client, out, session);
    out.result(session, () => [`${session.id}  ${session.state}`]);
    if (opts.wait && session.state === "failed") {
      throw new CliError(session.lastError?.code ?? "session_failed", session.lastError?.message ?? `session ${session.id} failed`);
    }
  });
}
