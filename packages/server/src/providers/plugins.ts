import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import type { GitProvider } from "./provider.js";
import { ProviderRegistry } from "./registry.js";

/**
 * Provider plugins (RR-8): `GROVE_PROVIDER_PLUGINS` lists absolute paths of ES modules,
 * separated by the platform path delimiter (`:`). Each module's default export (or its export
 * named `provider`) is a `GitProvider`, or an array of them. Loaded once at start-up; a broken
 * plugin stops the start-up with a message naming the module (fail loudly, never half-load).
 */
export async function loadProviderRegistry(pluginList: string | undefined): Promise<ProviderRegistry> {
  const registry = new ProviderRegistry();
  for (const path of (pluginList ?? "").split(":").map((s) => s.trim()).filter((s) => s.length > 0)) {
    if (!isAbsolute(path)) throw new Error(`GROVE_PROVIDER_PLUGINS: ${path} is not an absolute path`);
    let mod: { default?: unknown; provider?: unknown };
    try {
      mod = (await import(pathToFileURL(path).href)) as typeof mod;
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
