// `npm start` builds the web page, the scripted-agent, CLI and server bundles only when a
// source is newer than what was built: a fresh clone builds, a second start does not rebuild
// (and never empties packages/web/dist under a running server or test). The check is a walk of
// file times: nothing is spawned when everything is fresh. The bundles are built in-process.
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

function newest(path) {
  let s;
  try {
    s = statSync(path);
  } catch {
    return 0;
  }
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(
    s.mtimeMs,
    ...readdirSync(path)
      .filter((f) => f !== "node_modules" && f !== "dist")
      .map((f) => newest(join(path, f))),
  );
}

function built(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/** The server bundle `npm start` runs (see packages/server/scripts/build-server.mjs). */
export const SERVER_BUNDLE = join(root, "packages/server/dist/server/grove-server.cjs");

/** Rebuilds each stale part; resolves when all are fresh. */
export async function buildIfStale() {
  // git's seam starts git through this addon when it is there (it checks its own staleness).
  (await import(pathToFileURL(join(root, "packages/server/scripts/build-native.mjs")).href)).buildNative();
  const web = join(root, "packages/web");
  const protocol = newest(join(root, "packages/protocol/src"));
  const webStale =
    built(join(web, "dist/index.html")) < Math.max(newest(join(web, "src")), newest(join(web, "index.html")), newest(join(web, "vite.config.ts")), protocol);
  const agentStale = built(join(root, "packages/server/dist/scripted-agent.mjs")) < newest(join(root, "packages/server/src/agents"));
  const cliStale = built(join(root, "packages/server/dist/cli/grove.js")) < newest(join(root, "packages/server/src/cli"));
  const serverStale =
    built(SERVER_BUNDLE) < Math.max(newest(join(root, "packages/server/src")), protocol, newest(join(root, "packages/server/scripts/build-server.mjs")));
  // Each part alone: rebuilding the web page empties packages/web/dist, which a running server (or a
  // test's browser) may be serving, so it happens only when the page itself changed.
  if (webStale) execFileSync("npm", ["run", "build", "--workspace", "@grove/web"], { cwd: root, stdio: "inherit" });
  if (agentStale) await import(pathToFileURL(join(root, "packages/server/scripts/build-agent.mjs")).href);
  if (cliStale) execFileSync(process.execPath, [join(root, "packages/server/scripts/build-cli.mjs")], { cwd: root, stdio: "inherit" });
  if (serverStale) await (await import(pathToFileURL(join(root, "packages/server/scripts/build-server.mjs")).href)).buildServer();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildIfStale();
