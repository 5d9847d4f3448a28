/**
 * `grove`: the command-line client of the Grove HTTP API (CONTRACT.md "CLI: grove"), plus
 * `grove serve`, which runs the server itself. Started by bin/grove.mjs.
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { isCliError } from "./client.js";
import { withCommonOptions } from "./context.js";
import { formatError } from "./output.js";
import { registerDoctorCommand } from "./commands/doctor.js";
import { registerRepoCommands } from "./commands/repo.js";
import { registerServeCommand } from "./commands/serve.js";
import { registerSessionCommands } from "./commands/session.js";
import { registerSessionAgentCommands } from "./commands/session-agent.js";
import { registerTaskCommands } from "./commands/task.js";

const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** Builds the command tree. Exposed for tests that inspect it; {@link runCli} is the entry point. */
export function buildProgram(stderr: NodeJS.WritableStream = process.stderr): Command {
  const program = new Command("grove");
  // Before any .command(): subcommands inherit both settings.
  program.exitOverride();
  program.configureOutput({
    // Commander's own usage errors follow the contract's one-line shape too.
    outputError: (text) => stderr.write(formatError("invalid_arguments", text.replace(/^error:\s*/, "")) + "\n"),
  });
  withCommonOptions(program)
    .description("Run AI coding agents on tasks, each in its own git worktree.")
    .version(VERSION, "-V, --version");
  registerServeCommand(program);
  registerRepoCommands(program);
  registerTaskCommands(program);
  registerSessionCommands(program);
  registerSessionAgentCommands(program);
  registerDoctorCommand(program);
  return program;
}

/**
 * Runs one invocation and resolves with the process exit code: 0 on success, 1 after printing
 * `error: CODE: message` on stderr. `grove serve` resolves once the server listens; the open
 * server keeps the process alive until a signal handler exits it.
 */
export async function runCli(argv: readonly string[], stderr: NodeJS.WritableStream = process.stderr): Promise<number> {
  const program = buildProgram(stderr);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return 0; // --help, --version
      // Help shown for a bare `grove task`: commander printed usage but no error line.
      if (e.code === "commander.help" || e.code === "commander.helpDisplayed") {
        stderr.write(formatError("invalid_arguments", "missing command") + "\n");
      }
      return 1;
    }
    if (isCliError(e)) {
      stderr.write(formatError(e.code, e.message) + "\n");
      return 1;
    }
    stderr.write(formatError("internal_error", e instanceof Error ? e.message : String(e)) + "\n");
    return 1;
  }
}
