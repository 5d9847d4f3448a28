// V8's code cache for Grove's bundled programs (the server, the scripted agent). Node 20 offers a
// code cache to scripts (`vm.Script`'s `cachedData`) but not to ES modules, so a bundle is built
// as a CommonJS function body and compiled here. A process that finds a cache skips most of the
// parsing and compiling of its bundle.
// V8 checks a cache against the source's length only, so the cache file is named after the
// bundle's size and modification time: a rebuilt bundle never meets an older bundle's cache.
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import vm from "node:vm";

/** `<dir>/<stem>.<size>-<mtime>.cache`, next to `file` (the file whose bytes hold the source). */
export function codeCacheFile(file, stem) {
  const built = statSync(file);
  return join(dirname(file), `${stem}.${built.size}-${Math.trunc(built.mtimeMs)}.cache`);
}

/**
 * Compiles `source` as the body of `function (exports, require, module, __filename, __dirname)`
 * with the cached data of `codeCacheFile(filename, stem)`, if any. Returns the compiled function, `cache`
 * ("accepted", "rejected" or "none": no cache file yet) and `save`, which writes the cache of
 * every function compiled so far (call it once the program has done its usual start-up work).
 * A cache V8 rejects (another Node version, other flags) is replaced by `save`; one that cannot be
 * written (a read-only install, a sandbox) only costs speed.
 */
export function compileWithCodeCache(source, { filename, stem, importModuleDynamically }) {
  const cacheFile = codeCacheFile(filename, stem);
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename,
    cachedData,
    ...(importModuleDynamically === undefined ? {} : { importModuleDynamically }),
  });
  const cache = cachedData === undefined ? "none" : script.cachedDataRejected === false ? "accepted" : "rejected";
  const save = () => {
    if (cache === "accepted") return;
    const dir = dirname(cacheFile);
    const tmp = `${cacheFile}.${process.pid}`;
    try {
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
      // Caches of earlier builds of this bundle are never read again.
      for (const f of readdirSync(dir)) {
        if (f.startsWith(`${stem}.`) && f.endsWith(".cache") && f !== basename(cacheFile)) rmSync(join(dir, f), { force: true });
      }
    } catch {
      rmSync(tmp, { force: true });
    }
  };
  return { fn: script.runInThisContext(), cache, save };
}
