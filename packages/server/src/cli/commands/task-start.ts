import type { Command } from "commander";
import type { AgentProfile, CreateSessionBody, Task } from "@grove/protocol";
import { CliError, allInOrder, isCliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";
import { sessionStateWords } from "../output-words.js";
import { turnFailure, waitForSession } from "./session-wait.js";

interface TaskStartOptions {
  agent?: string;
  prompt?: string;
  wait?: boolean;
  runner?: string;
  quiet?: boolean;
}

/** `grove task start <taskId> [--agent NAME] [--prompt TEXT] [--wait]`. */
export function registerTaskStartCommand(task: Command): void {
  withCommonOptions(
    task
      .command("start <taskId>")
      .description("start a new agent session on the task (the first one materializes its worktrees)")
      .option("--agent <name>", "agent profile (see GET /api/v1/agents), e.g. scripted, claude, codex")
      .option(
        "--prompt <text>",
        'first prompt (default: the task\'s brief, its title and description, when it has a description; "" starts idle); for the scripted agent, one command per line',
      )
      .option("--wait", "wait until the first turn ends; exit 1 if the session or the turn fails")
      .option("--runner <runnerId>", "place the task's worktrees on this runner (first session only; see grove runners)")
      .option("-q, --quiet", "print only the new session's id (for scripts: SESSION=$(grove task start …))"),
  ).action(async (taskId: string, opts: TaskStartOptions, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const id = { id: taskId };
    // Validation first (the same codes the server would answer), so no progress line precedes
    // an error. Only the first session materializes; later ones attach to the existing worktrees.
    const [task, env, agents] = await allInOrder<[Task, { status: string } | undefined, AgentProfile[] | undefined]>([
      client.call("getTask", { params: id }),
      client.call("getTaskEnvironment", { params: id }).catch((e: unknown) => {
        if (isCliError(e) && e.status === 404) return undefined;
        throw e;
      }),
      opts.agent === undefined ? Promise.resolve(undefined) : client.call("listAgentProfiles"),
    ]);
    if (task.archivedAt) throw new CliError("task_archived", `task ${task.id} is archived; \`grove task unarchive ${task.id}\` first`);
    if (agents && !agents.some((a) => a.name === opts.agent)) {
      throw new CliError("agent_unknown", `no agent profile named "${opts.agent}" (known: ${agents.map((a) => a.name).join(", ")})`);
    }
    out.progress(env && env.status === "ready" ? "attaching to the task's workspace…" : "materializing workspace…");
    const body: CreateSessionBody = {};
    if (opts.agent !== undefined) body.agent = opts.agent;
    if (opts.prompt !== undefined) body.prompt = opts.prompt;
    if (opts.runner !== undefined) body.runnerId = opts.runner;
    let session = await client.call("startSession", { params: id, body });
    out.progress(`session ${session.id}: ${sessionStateWords(session.state)}`);
    if (opts.wait) session = await waitForSession(client, out, session);
    out.result(session, () => (opts.quiet ? [session.id] : [`${session.id}  ${sessionStateWords(session.state)}`]));
    if (opts.wait) {
      const failure = await turnFailure(client, session);
      if (failure) throw failure;
    }
  });
}
