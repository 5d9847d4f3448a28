// `npm start` = `grove serve` (CONTRACT.md) in one process: rebuild what is stale (nothing, on a
// second start), then run the bundled server. Without the bundle (no esbuild installed) it runs
// the TypeScript sources through tsx, as bin/grove.mjs does.
import { pathToFileURL } from "node:url";
import { SERVER_BUNDLE, buildIfStale } from "./build-if-stale.mjs";

let runCli;
try {
  await buildIfStale();
  ({ runCli } = await import(pathToFileURL(SERVER_BUNDLE).href));
} catch (e) {
  if (e?.code !== "ERR_MODULE_NOT_FOUND") throw e;
  const { register } = await import("tsx/esm/api");
  register();
  ({ runCli } = await import("../packages/server/src/cli/main.ts"));
}
process.exitCode = await runCli(["serve", ...process.argv.slice(2)]);
