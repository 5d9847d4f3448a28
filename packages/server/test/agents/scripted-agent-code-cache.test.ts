import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SCRIPTED_AGENT_BUNDLE } from "../../src/agents/profiles.js";

const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }) + "\n";

/** Where the loader looks for a bundle's cache: next to it, named after its size and modification time. */
function cacheOf(bundle: string): string {
  const s = statSync(bundle);
  return join(dirname(bundle), `scripted-agent.${s.size}-${Math.trunc(s.mtimeMs)}.cache`);
}

/** One `initialize` through the bundle: what the loader said about the cache (`report`), and whether ACP answered. */
function start(bundle: string, mode: "report" | "write" = "report"): { cache: string | undefined; answered: boolean } {
  const dir = mkdtempSync(join(tmpdir(), "grove-agent-cache-run-"));
  try {
    const run = spawnSync(process.execPath, [bundle], {
      input: INITIALIZE,
      encoding: "utf8",
      timeout: 20_000,
      env: { ...process.env, GROVE_SCRIPTED_CODE_CACHE: mode, GROVE_SCRIPTED_STATE_DIR: join(dir, "state") },
    });
    expect(run.status, run.stderr).toBe(0);
    const answered = JSON.parse(run.stdout.trim().split("\n")[0]!).result.agentCapabilities.loadSession === true;
    return { cache: /\[scripted-agent\] code cache: (\w+)/.exec(run.stderr)?.[1], answered };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("SES-9.11 the scripted agent's bundle runs from V8's code cache", () => {
  const copies = mkdtempSync(join(tmpdir(), "grove-agent-cache-"));
  afterAll(() => rmSync(copies, { recursive: true, force: true }));

  it("SES-9.11 the build saved the cache next to the bundle, and an agent start accepts it", () => {
    expect(existsSync(SCRIPTED_AGENT_BUNDLE), "run `npm run build` first").toBe(true);
    expect(existsSync(cacheOf(SCRIPTED_AGENT_BUNDLE)), `no code cache ${basename(cacheOf(SCRIPTED_AGENT_BUNDLE))} next to the bundle`).toBe(true);
    const caches = readdirSync(dirname(SCRIPTED_AGENT_BUNDLE)).filter((f) => f.startsWith("scripted-agent.") && f.endsWith(".cache"));
    expect(caches, "caches of earlier builds are removed").toEqual([basename(cacheOf(SCRIPTED_AGENT_BUNDLE))]);
    expect(start(SCRIPTED_AGENT_BUNDLE)).toEqual({ cache: "accepted", answered: true });
  });

  it("SES-9.11 a copy without a cache, or with one V8 rejects, still speaks ACP; `write` saves a cache the next start accepts", () => {
    const copy = join(copies, "scripted-agent.mjs");
    copyFileSync(SCRIPTED_AGENT_BUNDLE, copy);
    expect(start(copy)).toEqual({ cache: "none", answered: true });

    writeFileSync(cacheOf(copy), Buffer.alloc(4096, 7));
    expect(start(copy)).toEqual({ cache: "rejected", answered: true });

    expect(start(copy, "write")).toEqual({ cache: undefined, answered: true });
    expect(statSync(cacheOf(copy)).size).toBeGreaterThan(100_000);
    expect(start(copy)).toEqual({ cache: "accepted", answered: true });
  });
});
