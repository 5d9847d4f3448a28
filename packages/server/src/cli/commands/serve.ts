import type { Command } from "commander";
import { CliError } from "../client.js";
import type { CommonOptions } from "../context.js";
import { loadServer } from "../host.js";
import { formatError } from "../output.js";

interface ServeOptions {
  host?: string;
  port?: string;
}

/**
 * `grove serve [--host H] [--port P]`: runs the server in this process until SIGTERM/SIGINT.
 * Its options are its own: `--json` and `--server` belong to the client commands.
 */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("run the Grove server (configured by GROVE_HOST, GROVE_PORT, GROVE_HOME, GROVE_DATABASE_URL, GROVE_AUTH_TOKEN)")
    .option("--host <host>", "listen address (overrides GROVE_HOST; default 127.0.0.1)")
    .option("--port <port>", "listen port (overrides GROVE_PORT; default 7420, 0 = any free port)")
    .action(async (opts: ServeOptions, cmd: Command) => {
      const global = cmd.parent?.opts<CommonOptions>() ?? {};
      if (global.server !== undefined || global.json !== undefined) {
        throw new CliError("invalid_arguments", "grove serve takes --host and --port (not --server or --json)");
      }
      const env = { ...process.env, ...listenEnv(opts) };
      // Handlers go in before start-up so a signal during migrations still ends in a clean exit 0.
      const state: { running?: { close(): Promise<void> }; stopping?: NodeJS.Signals } = {};
      const stop = (signal: NodeJS.Signals) => {
        if (state.stopping) return; // a second Ctrl-C while draining changes nothing: agents are stopping
        state.stopping = signal;
        process.stdout.write(`grove: ${signal} received, stopping (agents are stopped gracefully)…\n`);
        if (state.running) shutDown(state.running, signal);
      };
      process.on("SIGTERM", stop);
      process.on("SIGINT", stop);
      // The server's modules load only here: client commands never pay for them.
      const { startServer, ConfigError } = await loadServer();
      state.running = await startServer({ env }).catch((e: unknown) => {
        throw startupError(e, ConfigError);
      });
      if (state.stopping) shutDown(state.running, state.stopping);
    });
}

/** Closes the server (stops agents gracefully, CLI-5), says so, and exits 0. */
function shutDown(running: { close(): Promise<void> }, signal: NodeJS.Signals): void {
  running.close().then(
    () => {
      process.stdout.write("grove: stopped\n", () => process.exit(0));
    },
    (e: unknown) => {
      process.stderr.write(formatError("shutdown_failed", `${signal}: ${(e as Error).message}`) + "\n");
      process.exit(1);
    },
  );
}

/** A start-up failure as a coded CLI error: bad configuration, a taken port, a failed migration. */
function startupError(e: unknown, configError: abstract new (...args: never[]) => Error): unknown {
  if (e instanceof configError) return new CliError("invalid_config", e.message);
  const code = (e as { code?: unknown }).code;
  if (e instanceof Error && typeof code === "string") return new CliError(code.toLowerCase(), e.message);
  return e;
}

/** `--host` / `--port` as the environment the server reads (GROVE_HOST / GROVE_PORT). */
export function listenEnv(opts: ServeOptions): { GROVE_HOST?: string; GROVE_PORT?: string } {
  const env: { GROVE_HOST?: string; GROVE_PORT?: string } = {};
  if (opts.host !== undefined) env.GROVE_HOST = opts.host.replace(/^\[(.*)\]$/, "$1");
  if (opts.port !== undefined) {
    const port = Number(opts.port);
    if (!/^\d+$/.test(opts.port) || port > 65535) throw new CliError("invalid_arguments", `--port must be a port number (0-65535), got "${opts.port}"`);
    env.GROVE_PORT = String(port);
  }
  return env;
}
