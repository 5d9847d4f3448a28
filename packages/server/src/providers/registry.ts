import { AppError } from "../domain/errors.js";
import { azureDevops } from "./azure-devops.js";
import { github } from "./github.js";
import { gitlab } from "./gitlab.js";
import type { GitProvider, RemoteUrl } from "./provider.js";

const ID = /^[a-z][a-z0-9-]{1,40}$/;

/** The providers this server knows: the three built-ins plus registered plugins (RR-8). */
export class ProviderRegistry {
  private readonly byId = new Map<string, GitProvider>();

  constructor(providers: GitProvider[] = [github, gitlab, azureDevops]) {
    for (const p of providers) this.register(p);
  }

  /** Adds a provider; its id must be new, lower-case, and not `local`. */
  register(p: GitProvider): void {
    if (!ID.test(p.id) || p.id === "local") throw new Error(`provider id ${JSON.stringify(p.id)} is not valid`);
    if (this.byId.has(p.id)) throw new Error(`provider ${p.id} is registered twice`);
    for (const fn of ["claimsHost", "parseLocation", "cloneUrl", "credentialForm", "pullRequestRef"] as const) {
      if (typeof p[fn] !== "function") throw new Error(`provider ${p.id} lacks ${fn}()`);
    }
    this.byId.set(p.id, p);
  }

  get(id: string): GitProvider | undefined {
    return this.byId.get(id);
  }

  ids(): string[] {
    return [...this.byId.keys()];
  }

  /** The explicit provider, or the one claiming the URL's host; `invalid_request` otherwise. */
  resolve(url: RemoteUrl, explicit: string | undefined): GitProvider {
    if (explicit !== undefined) {
      const p = this.byId.get(explicit);
      if (!p) throw new AppError("invalid_request", `unknown provider ${JSON.stringify(explicit)}; known: ${this.ids().join(", ")}`, { field: "provider" });
      return p;
    }
    const claimed = [...this.byId.values()].find((p) => p.claimsHost(url.host));
    if (!claimed)
      throw new AppError("invalid_request", `host ${url.host} does not name a provider; pass provider (${this.ids().join(", ")})`, { field: "provider" });
    return claimed;
  }
}
