import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import type { GitProvider } from "./provider.js";
import { ProviderRegistry } from "./registry.js";

/** Where a loader that runs the server from a cached compiled script hands in its own `import()`. */
export const IMPORT_URL_HOOK = Symbol.for("grove.importUrl");

/**
 * `import()` of an ES module by URL. The bundled server is compiled from V8's code cache
 * (scripts/load-server.mjs), and on Node 20 a function restored from that cache has no module
 * loader of its own: its loader passes one in through the global hook.
 */
function importUrl(href: string): Promise<unknown> {
  const hook = (globalThis as { [IMPORT_URL_HOOK]?: (href: string) => Promise<unknown> })[IMPORT_URL_HOOK];
  return hook ? hook(href) : import(href);
}

/**
 * Provider plugins (RR-8): `GROVE_PROVIDER_PLUGINS` lists absolute paths of ES modules,
 * separated by the platform path delimiter (`:`). Each module's default export (or its export
 * named `provider`) is a `GitProvider`, or an array of them. Loaded once at start-up; a broken
 * plugin stops the start-up with a message naming the module (fail loudly, never half-load).
 */
export async function loadProviderRegistry(pluginList: string | undefined): Promise<ProviderRegistry> {
  const registry = new ProviderRegistry();
  for (const path of (pluginList ?? "")
    .split(":")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)) {
    if (!isAbsolute(path)) throw new Error(`GROVE_PROVIDER_PLUGINS: ${path} is not an absolute path`);
    let mod: { default?: unknown; provider?: unknown };
    try {
      mod = (await importUrl(pathToFileURL(path).href)) as typeof mod;
    } catch (e) {
      throw new Error(`GROVE_PROVIDER_PLUGINS: cannot load ${path}: ${(e as Error).message}`, { cause: e });
    }
    const exported = mod.provider ?? mod.default;
    const list = (Array.isArray(exported) ? exported : [exported]) as GitProvider[];
    for (const p of list) {
      if (!p || typeof p !== "object" || typeof p.id !== "string") throw new Error(`GROVE_PROVIDER_PLUGINS: ${path} exports no provider`);
      try {
        registry.register(p);
      } catch (e) {
        throw new Error(`GROVE_PROVIDER_PLUGINS: ${path}: ${(e as Error).message}`, { cause: e });
      }
    }
  }
  return registry;
}
