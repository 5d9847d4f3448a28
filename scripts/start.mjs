// `npm start` = `grove serve` (docs/specs/cli.md, CLI-5) in one process: rebuild what is stale (nothing, on a
// second start), then run the bundled server. One process under npm means Ctrl-C reaches the
// server alone and npm exits with its code (0): a script of the form `a && b` runs under sh,
// which dies of SIGINT itself and makes npm exit 130. Without the bundle (no esbuild installed)
// it runs the TypeScript sources through tsx, as bin/grove.mjs does.
import { SERVER_BUNDLE, buildIfStale } from "./build-if-stale.mjs";
import { loadServerBundle } from "./load-server.mjs";

let runServerCli;
let onListening;
try {
  await buildIfStale();
  ({ runServerCli, saveCache: onListening } = loadServerBundle(SERVER_BUNDLE));
} catch (e) {
  if (e?.code !== "ENOENT" && e?.code !== "ERR_MODULE_NOT_FOUND") throw e;
  const { register } = await import("tsx/esm/api");
  register();
  ({ runServerCli } = await import("../packages/server/src/server-main.ts"));
}
process.exitCode = await runServerCli(["serve", ...process.argv.slice(2)], { onListening });
