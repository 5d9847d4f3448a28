// `npm start` builds the web page, the scripted-agent bundle and the CLI bundle only when a source is newer than
// what was built: a fresh clone builds, a second start does not rebuild (and never empties
// packages/web/dist under a running server or test).
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

function newest(path) {
  let s;
  try {
    s = statSync(path);
  } catch {
    return 0;
  }
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).filter((f) => f !== "node_modules" && f !== "dist").map((f) => newest(join(path, f))));
}

function built(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

const web = join(root, "packages/web");
const webStale = built(join(web, "dist/index.html")) < Math.max(newest(join(web, "src")), newest(join(web, "index.html")), newest(join(web, "vite.config.ts")), newest(join(root, "packages/protocol/src")));
const agentStale = built(join(root, "packages/server/dist/scripted-agent.mjs")) < newest(join(root, "packages/server/src/agents"));
const cliStale = built(join(root, "packages/server/dist/cli/grove.js")) < newest(join(root, "packages/server/src/cli"));
// Each part alone: rebuilding the web page empties packages/web/dist, which a running server (or a
// test's browser) may be serving, so it happens only when the page itself changed.
if (webStale) execFileSync("npm", ["run", "build", "--workspace", "@grove/web"], { cwd: root, stdio: "inherit" });
if (agentStale) execFileSync(process.execPath, [join(root, "packages/server/scripts/build-agent.mjs")], { cwd: root, stdio: "inherit" });
if (cliStale) execFileSync(process.execPath, [join(root, "packages/server/scripts/build-cli.mjs")], { cwd: root, stdio: "inherit" });
