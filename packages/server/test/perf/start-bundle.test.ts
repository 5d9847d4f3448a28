import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { apiClient, followServer, tempHome, waitFor, waitForSession } from "../fixture/server.js";

const ROOT = resolve(import.meta.dirname, "../../../..");
const DIST = join(ROOT, "packages/server/dist/server");
const PLUGIN = resolve(import.meta.dirname, "../remote/harness/forge-provider.mjs");
const TOKEN = "start-bundle-token";

type Started = ReturnType<typeof followServer> & { child: ChildProcess };

/** Runs a copy of the server bundle the way `npm start` does (scripts/load-server.mjs), saving its code cache after `listening`. */
function startBundle(bundle: string, env: Record<string, string>): Started {
  const driver = `import { loadServerBundle } from ${JSON.stringify(join(ROOT, "scripts/load-server.mjs"))};
const { runServerCli, saveCache, cache } = loadServerBundle(process.argv[1]);
process.stderr.write("code cache: " + cache + "\\n");
process.exitCode = await runServerCli(["serve"], { onListening: saveCache });`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", driver, bundle], {
    env: { ...process.env, GROVE_PORT: "0", GROVE_HOST: "127.0.0.1", GROVE_DATABASE_URL: "", GROVE_AUTH_TOKEN: TOKEN, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { ...followServer(child), child };
}

async function stop(s: Started): Promise<void> {
  s.child.kill("SIGTERM");
  await s.exited;
}

describe("`npm start` runs the server bundle from V8's code cache", () => {
  // A copy next to the real bundle (its externals resolve from there), with its own cache files.
  const stem = `start-bundle-test-${process.pid}`;
  const bundle = join(DIST, `${stem}.cjs`);
  const caches = () => readdirSync(DIST).filter((f) => f.startsWith(`${stem}.`) && f.endsWith(".cache"));
  const badPlugin = join(DIST, `${stem}-plugin.mjs`);
  afterAll(() => {
    for (const f of [bundle, badPlugin, ...caches().map((c) => join(DIST, c))]) rmSync(f, { force: true });
  });

  it("the first start saves the cache after listening; the next start accepts it (no rewrite) and still imports provider plugins and runs an agent", async () => {
    execFileSync(process.execPath, [join(ROOT, "scripts/build-if-stale.mjs")], { cwd: ROOT, stdio: "ignore" });
    copyFileSync(join(DIST, "grove-server.cjs"), bundle);
    const home = await tempHome();
    const env = { GROVE_HOME: home, GROVE_PROVIDER_PLUGINS: PLUGIN };

    const first = startBundle(bundle, env);
    await first.url;
    expect(first.output()).toContain("code cache: none");
    await waitFor(() => caches().length === 1, "the code cache file", 20_000);
    await stop(first);
    const cache = join(DIST, caches()[0]!);
    const saved = statSync(cache);
    expect(saved.size).toBeGreaterThan(100_000);

    // Restored from the cache: accepted as is, so the loader leaves the file alone.
    const second = startBundle(bundle, env);
    try {
      const api = apiClient(await second.url, TOKEN);
      expect(second.output()).toContain("code cache: accepted");
      // The ACP SDK is loaded on the first agent start, from code compiled out of the cache.
      const repo = await makeRepo();
      const r = await api("POST", "/repositories", { path: repo.path });
      const t = await api("POST", "/tasks", { title: "From the cache", repositories: [{ repositoryId: r.body.id }] });
      const s = await api("POST", `/tasks/${t.body.id}/sessions`, { prompt: "hello" });
      expect(s.status, JSON.stringify(s.body)).toBe(201);
      await waitForSession(api, s.body.id, ["waiting_for_input"]);
      const messages = await api("GET", `/sessions/${s.body.id}/messages`);
      expect(JSON.stringify(messages.body)).toContain("hello");
    } finally {
      await stop(second);
    }
    const after = statSync(cache);
    expect(after.mtimeMs, "a rejected cache would have been rewritten").toBe(saved.mtimeMs);

    // A rebuilt bundle (another modification time, V8 would only compare lengths) never meets
    // the old cache: the start compiles afresh and replaces it.
    const later = new Date(Date.now() + 5_000);
    utimesSync(bundle, later, later);
    const rebuilt = startBundle(bundle, env);
    await rebuilt.url;
    expect(rebuilt.output()).toContain("code cache: none");
    await waitFor(() => caches().length === 1 && caches()[0] !== basename(cache), "the new build's cache replacing the old one", 20_000);
    await stop(rebuilt);

    // A plugin is still imported by URL from cached code (through the loader's hook): a broken
    // one stops the start with the plugin's own complaint, not a missing dynamic-import callback.
    writeFileSync(badPlugin, "export default {};\n");
    const third = startBundle(bundle, { GROVE_HOME: home, GROVE_PROVIDER_PLUGINS: badPlugin });
    expect((await third.exited).code).not.toBe(0);
    expect(third.output()).toContain("exports no provider");
    rmSync(home, { recursive: true, force: true });
  }, 120_000);
});
