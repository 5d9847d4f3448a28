/**
 * Vitest global setup: the CLI tests run `bin/grove.mjs` with GROVE_CLI_BUNDLE=require, i.e.
 * against the bundled client, so the bundle is rebuilt here, once per run, when a
 * source it was built from is newer (the same check the launcher makes).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const SERVER_DIR = fileURLToPath(new URL("../../", import.meta.url));

function bundleIsFresh(): boolean {
  try {
    const built = statSync(`${SERVER_DIR}dist/cli/grove.js`).mtimeMs;
    const inputs = JSON.parse(readFileSync(`${SERVER_DIR}dist/cli/inputs.json`, "utf8")) as string[];
    return inputs.every((p) => statSync(`${SERVER_DIR}${p}`).mtimeMs <= built);
  } catch {
    return false;
  }
}

export default function setup(): void {
  if (!bundleIsFresh()) execFileSync(process.execPath, [`${SERVER_DIR}scripts/build-cli.mjs`], { stdio: "inherit" });
}
