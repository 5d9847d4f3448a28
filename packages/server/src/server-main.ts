import { startServer } from "./app.js";
import { runCli } from "./cli/main.js";
import { ConfigError } from "./config.js";

/**
 * `npm start`'s entry (bundled by scripts/build-server.mjs): the CLI with the server's modules
 * linked in, so `grove serve` starts without compiling TypeScript at run time. The
 * `grove` launcher (bin/grove.mjs) keeps client commands free of these modules. `onListening`
 * runs once the server listens (the loader then saves its code cache).
 */
export function runServerCli(argv: readonly string[], hooks: { onListening?: () => void } = {}): Promise<number> {
  const start: typeof startServer = async (...args) => {
    const server = await startServer(...args);
    hooks.onListening?.();
    return server;
  };
  return runCli(argv, { loadServer: async () => ({ startServer: start, ConfigError }) });
}
