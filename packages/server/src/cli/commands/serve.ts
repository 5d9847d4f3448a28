import type { Command } from "commander";
import { CliError } from "../client.js";
import { withCommonOptions, type CommonOptions } from "../context.js";
import { formatError } from "../output.js";

/** `grove serve`: runs the server in this process until SIGTERM/SIGINT. */
export function registerServeCommand(program: Command): void {
  withCommonOptions(
    program.command("serve").description("run the Grove server (GROVE_HOST, GROVE_PORT, GROVE_HOME, GROVE_DATABASE_URL, GROVE_AUTH_TOKEN)"),
  ).action(async (_opts: unknown, cmd: Command) => {
    const { server } = cmd.optsWithGlobals<CommonOptions>();
    const env = server === undefined ? process.env : { ...process.env, ...listenEnv(server) };
    // Handlers go in before start-up so a signal during migrations still ends in a clean exit 0.
    const state: { running?: { close(): Promise<void> }; stopping?: NodeJS.Signals } = {};
    const stop = (signal: NodeJS.Signals) => {
      if (state.stopping) return; // a second Ctrl-C while draining changes nothing: agents are stopping
      state.stopping = signal;
      if (state.running) shutDown(state.running, signal);
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
    // Loaded here, not at the top: the client commands must not pay for (or depend on) the
    // server's modules (database drivers, Fastify, the agent runtime).
    const [{ startServer }, { ConfigError }] = await Promise.all([import("../../app.js"), import("../../config.js")]);
    state.running = await startServer({ env }).catch((e: unknown) => {
      throw startupError(e, ConfigError);
    });
    if (state.stopping) shutDown(state.running, state.stopping);
  });
}

/** Closes the server (stops agents gracefully, CONTRACT.md) and exits 0. */
function shutDown(running: { close(): Promise<void> }, signal: NodeJS.Signals): void {
  running.close().then(
    () => process.exit(0),
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

/** `grove serve --server http://HOST:PORT` sets where to listen (GROVE_HOST/GROVE_PORT). */
export function listenEnv(server: string): { GROVE_HOST: string; GROVE_PORT: string } {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new CliError("invalid_arguments", `--server is not a URL: ${server}`);
  }
  if (url.protocol !== "http:") throw new CliError("invalid_arguments", `grove serve listens on http only, got ${server}`);
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return { GROVE_HOST: host, GROVE_PORT: url.port === "" ? "80" : url.port };
}
