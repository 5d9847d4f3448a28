// Loads the bundled server (packages/server/dist/server/grove-server.cjs) the fast way: compiled
// with V8's code cache (scripts/code-cache.mjs). The first start compiles the source and, once the
// server listens, saves the cache next to the bundle (with the functions start-up ran already
// compiled); later starts skip most parsing and compiling, so `npm start` listens sooner.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname } from "node:path";
import vm from "node:vm";
import { compileWithCodeCache } from "./code-cache.mjs";

/**
 * The bundle's `runServerCli` (packages/server/src/server-main.ts), `saveCache` (call once the
 * server listens) and `cache`: "accepted", "rejected" or "none" (no cache file yet).
 */
export function loadServerBundle(bundle) {
  const stem = basename(bundle).replace(/\.cjs$/, "");
  const { fn, cache, save } = compileWithCodeCache(readFileSync(bundle, "utf8"), {
    filename: bundle,
    stem,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  // A function restored from the cache cannot import(): ES modules by URL (provider plugins) come through here.
  globalThis[Symbol.for("grove.importUrl")] = (href) => import(href);
  const module = { exports: {} };
  fn(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return { runServerCli: module.exports.runServerCli, saveCache: save, cache };
}
