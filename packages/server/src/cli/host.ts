/**
 * What the CLI needs from the server side, handed in by the launcher (bin/grove.mjs). The
 * client bundle must not contain (or load) a server module; only `grove serve` calls the
 * loader, which compiles and imports the server's sources on demand.
 */

/** The server's entry points `grove serve` uses (src/app.ts, src/config.ts). */
export interface ServerModules {
  startServer(opts: { env?: NodeJS.ProcessEnv }): Promise<{ close(): Promise<void> }>;
  /** Thrown by the configuration loader for a bad environment variable. */
  ConfigError: abstract new (
    ...args: never[]
  ) => Error;
}

export type ServerLoader = () => Promise<ServerModules>;

let loader: ServerLoader | undefined;

/** Called once by the launcher before the command runs. */
export function setServerLoader(load: ServerLoader): void {
  loader = load;
}

/** The server's modules; fails when the CLI was started without a launcher that provides them. */
export function loadServer(): Promise<ServerModules> {
  if (!loader) return Promise.reject(new Error("this grove client was started without the server (use bin/grove.mjs)"));
  return loader();
}
