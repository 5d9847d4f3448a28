/**
 * Vitest global setup, once per run: the bundles the suite runs are rebuilt here when a source
 * they were built from is newer (`npm test` builds them first; a run of single files may not).
 * - the CLI tests run `bin/grove.mjs` with GROVE_CLI_BUNDLE=require, i.e. the bundled client
 *   (the same check the launcher makes);
 * - spawnServer (test/fixture/server.ts) runs `grove serve` from the server bundle, the one
 *   `npm start` runs, and the scripted agent starts from its bundle while that is fresh
 *   (agents/profiles.ts), as in a built install.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildNative } from "../../scripts/build-native.mjs";

const SERVER_DIR = fileURLToPath(new URL("../../", import.meta.url));
const PROTOCOL_SRC = fileURLToPath(new URL("../../../protocol/src", import.meta.url));

function cliBundleIsFresh(): boolean {
  try {
    const built = statSync(`${SERVER_DIR}dist/cli/grove.js`).mtimeMs;
    const inputs = JSON.parse(readFileSync(`${SERVER_DIR}dist/cli/inputs.json`, "utf8")) as string[];
    return inputs.every((p) => statSync(`${SERVER_DIR}${p}`).mtimeMs <= built);
  } catch {
    return false;
  }
}

/** The newest modification time under `path` (scripts/build-if-stale.mjs makes the same walk for `npm start`). */
function newest(path: string): number {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((f) => newest(join(path, f))));
}

const built = (path: string): number => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? -1;

export default function setup(): void {
  // The addon git's seam starts git through (it checks its own staleness and never fails).
  buildNative();
  if (!cliBundleIsFresh()) execFileSync(process.execPath, [`${SERVER_DIR}scripts/build-cli.mjs`], { stdio: "inherit" });
  if (
    built(`${SERVER_DIR}dist/server/grove-server.cjs`) <
    Math.max(newest(`${SERVER_DIR}src`), newest(PROTOCOL_SRC), newest(`${SERVER_DIR}scripts/build-server.mjs`))
  ) {
    execFileSync(process.execPath, [`${SERVER_DIR}scripts/build-server.mjs`], { stdio: "inherit" });
  }
  if (built(`${SERVER_DIR}dist/scripted-agent.mjs`) < newest(`${SERVER_DIR}src/agents`))
    execFileSync(process.execPath, [`${SERVER_DIR}scripts/build-agent.mjs`], { stdio: "inherit" });
}
