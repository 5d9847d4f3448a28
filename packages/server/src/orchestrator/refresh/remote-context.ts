import { credentialKeyId, loadCredentialKey } from "../../git/credential-vault.js";
import { ProviderRegistry } from "../../providers/registry.js";
import type { Deps, RemoteServices } from "../context.js";

export type { RemoteServices } from "../context.js";

// Keyed by the deps object: each composition built without remote services gets one default set.
const fallback = new WeakMap<object, RemoteServices>();
const keys = new Map<string, Buffer>();

/** The deps' remote services, or defaults (built-in providers only) for deps built without them. */
export function remoteOf(deps: Pick<Deps, "remote">): RemoteServices {
  if (deps.remote) return deps.remote;
  let r = fallback.get(deps);
  if (!r) {
    r = { providers: new ProviderRegistry(), refreshTimeoutMs: 120_000, cloneTimeoutMs: 1_800_000 };
    fallback.set(deps, r);
  }
  return r;
}

/** The credential key of this GROVE_HOME (created 0600 on first use), cached per home. */
export function credentialKey(deps: Pick<Deps, "home">): Buffer {
  let k = keys.get(deps.home);
  if (!k) {
    k = loadCredentialKey(deps.home);
    keys.set(deps.home, k);
  }
  return k;
}

/** The public id of this runner's credential key (recorded in its runners row and with each sealed credential). */
export function credentialKeyIdOf(deps: Pick<Deps, "home">): string {
  return credentialKeyId(credentialKey(deps));
}
