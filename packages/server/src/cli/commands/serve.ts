import type { Command } from "commander";
import { CliError } from "../client.js";
import { withCommonOptions, type CommonOptions } from "../context.js";
import { formatError } from "../output.js";

/** The composition root's entry point, as packages/server/src/app.ts exports it. */
interface AppModule {
  startServer(opts?: { env?: NodeJS.ProcessEnv }): Promise<{ url: string; close(): Promise<void> }>;
}

/** `grove serve`: runs the server in this process until SIGTERM/SIGINT. */
export function registerServeCommand(program: Command): void {
  withCommonOptions(
    program.command("serve").description("run the Grove server (GROVE_HOST, GROVE_PORT, GROVE_HOME, GROVE_DATABASE_URL, GROVE_AUTH_TOKEN)"),
  ).action(async (_opts: unknown, cmd: Command) => {
    const { server } = cmd.optsWithGlobals<CommonOptions>();
    const env = server === undefined ? process.env : { ...process.env, ...listenEnv(server) };
    // Loaded here, not at the top: the client commands must not pay for (or depend on) the
    // server's modules. The specifier is a variable so this file type-checks on its own.
    const appPath = "../app.js";
    const app = (await import(appPath)) as AppModule;
    const running = await app.startServer({ env });
    let closing = false;
    const stop = (signal: NodeJS.Signals) => {
      if (closing) return; // a second Ctrl-C while draining changes nothing: agents are stopping
      closing = true;
      running.close().then(
        () => process.exit(0),
        (e: unknown) => {
          process.stderr.write(formatError("shutdown_failed", `${signal}: ${(e as Error).message}`) + "\n");
          process.exit(1);
        },
      );
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  });
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
