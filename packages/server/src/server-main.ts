import { startServer } from "./app.js";
import { runCli } from "./cli/main.js";
import { ConfigError } from "./config.js";

/**
 * `npm start`'s entry (bundled by scripts/build-server.mjs): the CLI with the server's modules
 * linked in, so `grove serve` starts without compiling TypeScript at run time (issue 13). The
 * `grove` launcher (bin/grove.mjs) keeps client commands free of these modules.
 */
export function runServerCli(argv: readonly string[]): Promise<number> {
  return runCli(argv, { loadServer: async () => ({ startServer, ConfigError }) });
}
