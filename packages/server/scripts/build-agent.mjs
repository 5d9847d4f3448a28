// Bundles the scripted agent into one plain-JS file (dist/scripted-agent.mjs) so that each agent
// process starts without compiling TypeScript: about 3× faster than through tsx, which matters
// when dozens of sessions launch at once. profiles.ts uses the bundle only while it is newer than
// every scripted-agent*.ts source, and falls back to tsx otherwise.
// The agent's code is a CommonJS body inside the file, compiled with V8's code cache
// (scripted-agent-entry.mjs says why); the build then runs the agent once through an ACP start
// (initialize, session/new) to save that cache next to the bundle.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const outfile = here("../dist/scripted-agent.mjs");
const common = { bundle: true, platform: "node", target: "node20", minify: true, legalComments: "none", logLevel: "warning" };

const agent = await build({ ...common, entryPoints: [here("../src/agents/scripted-agent.ts")], format: "cjs", write: false });
const body = agent.outputFiles[0].text;
await build({
  ...common,
  entryPoints: [here("./scripted-agent-entry.mjs")],
  outfile,
  format: "esm",
  plugins: [
    {
      name: "scripted-agent-body",
      setup(b) {
        b.onResolve({ filter: /^grove:scripted-agent-body$/ }, (a) => ({ path: a.path, namespace: "grove" }));
        b.onLoad({ filter: /.*/, namespace: "grove" }, () => ({ contents: body, loader: "text" }));
      },
    },
  ],
});
await saveCodeCache();

/**
 * One ACP start of the new bundle with `GROVE_SCRIPTED_CODE_CACHE=write`; the agent saves the cache
 * as it exits. An agent that refuses, prints something that is not JSON-RPC, exits early or does not
 * finish within `SAVE_TIMEOUT_MS` fails the build with what it said (a build never hangs on it).
 */
async function saveCodeCache() {
  const SAVE_TIMEOUT_MS = 60_000;
  const dir = mkdtempSync(join(tmpdir(), "grove-agent-cache-"));
  try {
    const child = spawn(process.execPath, [outfile], {
      cwd: dir,
      env: { ...process.env, GROVE_SCRIPTED_CODE_CACHE: "write", GROVE_SCRIPTED_STATE_DIR: join(dir, "state") },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const requests = [
      { method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } },
      { method: "session/new", params: { cwd: dir, mcpServers: [] } },
    ];
    const send = (id) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, ...requests[id] })}\n`);
    await new Promise((resolve, reject) => {
      const fail = (why) => {
        clearTimeout(timer);
        child.kill("SIGKILL");
        reject(new Error(`saving the scripted agent's code cache failed: ${why}${stderr ? `\n${stderr}` : ""}`));
      };
      const timer = setTimeout(() => fail(`no exit within ${SAVE_TIMEOUT_MS} ms`), SAVE_TIMEOUT_MS);
      child.on("error", (e) => fail(e.message));
      child.on("exit", (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`the scripted agent exited with ${code ?? signal} while saving its code cache:\n${stderr}`));
      });
      let answered = 0;
      let buffered = "";
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk) => {
        buffered += chunk;
        const lines = buffered.split("\n");
        buffered = lines.pop();
        for (const line of lines) {
          let msg;
          try {
            msg = JSON.parse(line);
          } catch {
            return fail(`not JSON-RPC on stdout: ${line.slice(0, 200)}`);
          }
          if (msg.id === undefined || msg.method !== undefined) continue;
          if (msg.error) return fail(`the agent refused ${requests[msg.id]?.method}: ${msg.error.message}`);
          answered += 1;
          if (answered < requests.length) send(answered);
          else child.stdin.end();
        }
      });
      send(0);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
