/**
 * `grove`: the command-line client of the Grove HTTP API (docs/specs/cli.md), plus
 * `grove serve`, which runs the server itself. Started by bin/grove.mjs, which loads this file
 * from a bundle (dist/cli/grove.js, built by scripts/build-cli.mjs) so a client command never
 * compiles TypeScript nor loads a server module.
 *
 * Registering a command:
 * - a new top-level command or group: one entry in {@link COMMANDS} (name, summary, loader of a
 *   module exporting `register…(program)`, which creates `program.command(name)`);
 * - a subcommand of an existing group: one call in that group's register function, e.g.
 *   `registerTaskCommitCommand(task)` in commands/task.ts `registerTaskCommands` (the way
 *   task-start.ts and task-diff.ts are registered). The group's module is loaded only when the
 *   command line names the group, so each group costs nothing to the others.
 */
import { Command, CommanderError } from "commander";
import { isCliError } from "./client.js";
import { withCommonOptions } from "./context.js";
import { setServerLoader, type ServerLoader } from "./host.js";
import { agentStderr, formatError } from "./output.js";
import { exitQuietlyOnClosedPipe } from "./pipe.js";

type Register = (program: Command) => void;

/** Top-level commands: what `grove --help` lists, and which module defines each (loaded lazily). */
export const COMMANDS: readonly { name: string; summary: string; load: () => Promise<Register> }[] = [
  { name: "serve", summary: "run the Grove server", load: async () => (await import("./commands/serve.js")).registerServeCommand },
  { name: "repo", summary: "register, inspect and remove repositories", load: async () => (await import("./commands/repo.js")).registerRepoCommands },
  { name: "task", summary: "create, inspect and run tasks", load: async () => (await import("./commands/task.js")).registerTaskCommands },
  { name: "session", summary: "talk to and inspect agent sessions", load: async () => (await import("./commands/session.js")).registerSessionCommands },
  {
    name: "agents",
    summary: "agent profiles: availability, install, check",
    load: async () => (await import("./commands/session-agent.js")).registerAgentsCommand,
  },
  {
    name: "doctor",
    summary: "read-only audit: database rows vs git worktrees on disk",
    load: async () => (await import("./commands/doctor.js")).registerDoctorCommand,
  },
  {
    name: "runners",
    summary: "list the runners sharing the database, with load and state",
    load: async () => (await import("./commands/runners.js")).registerRunnersCommand,
  },
  {
    name: "inbox",
    summary: "what needs you (durable attention inbox): list, done",
    load: async () => (await import("./commands/inbox.js")).registerInboxCommand,
  },
  {
    name: "usage",
    summary: "tokens and cost per task, repository, agent, runner or day",
    load: async () => (await import("./commands/usage.js")).registerUsageCommand,
  },
  {
    name: "workflow",
    summary: "workflows as YAML: ls, show, apply, export",
    load: async () => (await import("./commands/workflow.js")).registerWorkflowCommands,
  },
  {
    name: "completion",
    summary: "print a shell completion script (bash, zsh or fish)",
    load: async () => (await import("./commands/completion.js")).registerCompletionCommand,
  },
];

/** The version is injected by the bundler; the TypeScript sources (tests) read package.json. */
declare const GROVE_VERSION: string | undefined;
async function version(): Promise<string> {
  if (typeof GROVE_VERSION === "string") return GROVE_VERSION;
  const { readFileSync } = await import("node:fs");
  return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

/** The first word of argv that is not an option (or an option's value): the command's name (`help X` names X). */
export function commandName(argv: readonly string[]): string | undefined {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--server") i++;
    else if (!a.startsWith("-")) words.push(a);
  }
  return words[0] === "help" ? words[1] : words[0];
}

/**
 * Builds the command tree for one invocation: every top-level command appears (name and
 * summary), but only `only` (or all of them, for `completion` and tests) is fully loaded.
 */
export async function buildProgram(opts: { stderr?: NodeJS.WritableStream; only?: string | "all"; json?: boolean } = {}): Promise<Command> {
  const stderr = opts.stderr ?? process.stderr;
  const json = opts.json === true;
  const program = new Command("grove");
  // Before any .command(): subcommands inherit both settings.
  program.exitOverride();
  program.configureOutput({
    // Commander's own usage errors follow the contract's one-line shape too.
    outputError: (text) => stderr.write(errorText(json, "invalid_arguments", text.replace(/^error:\s*/, "").trim()) + "\n"),
  });
  withCommonOptions(program)
    .description("Run AI coding agents on tasks, each in its own git worktree.")
    .version(await version(), "-V, --version");
  for (const c of COMMANDS) {
    if (opts.only === "all" || opts.only === c.name) (await c.load())(program);
    else program.command(c.name).description(c.summary);
  }
  return program;
}

/**
 * Runs one invocation and resolves with the process exit code: 0 on success, 1 after printing
 * `error: CODE: message` on stderr. `grove serve` resolves once the server listens; the open
 * server keeps the process alive until a signal handler exits it.
 */
export async function runCli(argv: readonly string[], opts: { stderr?: NodeJS.WritableStream; loadServer?: ServerLoader } = {}): Promise<number> {
  const stderr = opts.stderr ?? process.stderr;
  if (opts.loadServer) setServerLoader(opts.loadServer);
  exitQuietlyOnClosedPipe();
  const name = commandName(argv);
  // `grove serve` has no machine output: its refusal of `--json` is a plain line.
  const json = name !== "serve" && wantsJson(argv);
  try {
    const program = await buildProgram({ stderr, only: name === "completion" ? "all" : name, json });
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return 0; // --help, --version
      // Help shown for a bare `grove task`: commander printed usage but no error line.
      if (e.code === "commander.help" || e.code === "commander.helpDisplayed") {
        stderr.write(errorText(json, "invalid_arguments", "missing command") + "\n");
      }
      return 1;
    }
    if (isCliError(e)) {
      if (json) {
        stderr.write(errorText(true, e.code, e.message, e.details) + "\n");
        return 1;
      }
      // SES-3 / WT-5 / REV-2: the server's `details.action` (or `details.fix`) says what fixes the error.
      const action =
        typeof e.details?.action === "string" ? `\naction: ${e.details.action}` : typeof e.details?.fix === "string" ? `\nfix: ${e.details.fix}` : "";
      stderr.write(formatError(e.code, e.message) + action + agentStderr(e.details?.stderr) + "\n");
      return 1;
    }
    stderr.write(errorText(json, "internal_error", e instanceof Error ? e.message : String(e)) + "\n");
    return 1;
  }
}

/** Whether the invocation asked for machine output (`--json` anywhere before a `--`). */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/**
 * CLI-16: a failure as stderr shows it. With `--json`, one JSON document on one line, shaped
 * like the API's errors (`{"error": {code, message, details}}`), so a script reads stderr as it
 * reads stdout; otherwise the contract's `error: CODE: message` line.
 */
function errorText(json: boolean, code: string, message: string, details?: Record<string, unknown>): string {
  if (!json) return formatError(code, message);
  return JSON.stringify({ error: { code, message, details: details ?? {} } });
}
