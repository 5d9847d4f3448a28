#!/usr/bin/env node
// Launcher of the `grove` CLI. Client commands run from the plain-JS bundle (dist/cli/, built by
// scripts/build-cli.mjs through `npm run build` and `npm start`) while it is newer than every
// source it was built from; otherwise from the TypeScript sources through tsx's loader hooks
// (Node 20 has no type stripping). Only `grove serve` loads the server's modules.
// GROVE_CLI_BUNDLE=require (the CLI tests) refuses the fallback, so a stale bundle is noticed.
import { readFileSync, statSync } from "node:fs";

// Plain string paths: this check runs on every command, URL objects per file cost measurably.
const root = decodeURIComponent(new URL("..", import.meta.url).pathname);

function bundleIsFresh() {
  try {
    const built = statSync(`${root}dist/cli/grove.js`).mtimeMs;
    const inputs = JSON.parse(readFileSync(`${root}dist/cli/inputs.json`, "utf8"));
    return inputs.every((p) => statSync(root + p).mtimeMs <= built);
  } catch {
    return false;
  }
}

async function registerTsx() {
  const { register } = await import("tsx/esm/api");
  register();
}

async function loadServer() {
  await registerTsx();
  const [{ startServer }, { ConfigError }] = await Promise.all([import("../src/app.ts"), import("../src/config.ts")]);
  return { startServer, ConfigError };
}

let cli;
if (bundleIsFresh()) {
  cli = await import("../dist/cli/grove.js");
} else if (process.env.GROVE_CLI_BUNDLE === "require") {
  process.stderr.write("error: cli_bundle_stale: dist/cli is missing or older than src/cli; run `npm run build`\n");
  process.exit(1);
} else {
  await registerTsx();
  cli = await import("../src/cli/main.ts");
}
process.exitCode = await cli.runCli(process.argv.slice(2), { loadServer });
