// Loads the bundled server (packages/server/dist/server/grove-server.cjs) the fast way: compiled
// with V8's code cache, which Node 20 offers to scripts but not to ES modules. The first start
// compiles the source and, once the server listens, saves the cache next to the bundle (with the
// functions start-up ran already compiled); later starts skip most parsing and compiling (issue
// 13: `npm start` → listening). A cache V8 rejects (another Node version, a rebuilt bundle) is
// replaced the same way; one that cannot be written (a read-only install) only costs speed.
// V8 checks a cache against the source's length only, so the cache file is named after the
// bundle's size and modification time: a rebuilt bundle never meets an older bundle's cache.
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import vm from "node:vm";

/**
 * The bundle's `runServerCli` (packages/server/src/server-main.ts), `saveCache` (call once the
 * server listens) and `cache`: "accepted", "rejected" or "none" (no cache file yet).
 */
export function loadServerBundle(bundle) {
  const stem = basename(bundle).replace(/\.cjs$/, "");
  const built = statSync(bundle);
  const cacheFile = join(dirname(bundle), `${stem}.${built.size}-${Math.trunc(built.mtimeMs)}.cache`);
  const source = readFileSync(bundle, "utf8");
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  // A function restored from the cache cannot import(): ES modules by URL (provider plugins) come through here.
  globalThis[Symbol.for("grove.importUrl")] = (href) => import(href);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  const cache = cachedData === undefined ? "none" : script.cachedDataRejected === false ? "accepted" : "rejected";
  const saveCache = () => {
    if (cache === "accepted") return;
    const tmp = `${cacheFile}.${process.pid}`;
    try {
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
      // Caches of earlier builds of this bundle are never read again.
      for (const f of readdirSync(dirname(bundle))) {
        if (f.startsWith(`${stem}.`) && f.endsWith(".cache") && f !== basename(cacheFile)) rmSync(join(dirname(bundle), f), { force: true });
      }
    } catch {
      rmSync(tmp, { force: true });
    }
  };
  return { runServerCli: module.exports.runServerCli, saveCache, cache };
}
