/**
 * RR-8: the one interface every hosting provider implements. A provider only computes (URL
 * layouts, credential forms, ref names); git/ executes. A new provider is a module exporting a
 * `GitProvider` plus its registration (built-in list in registry.ts, or a plugin module named in
 * GROVE_PROVIDER_PLUGINS, see plugins.ts) — nothing else changes.
 */

/** A remote URL split into its parts; produced by `parseRemoteUrl` (url.ts). */
export interface RemoteUrl {
  /** `https`, `http` (loopback only), `ssh` (ssh:// and scp-like). */
  scheme: "https" | "http" | "ssh";
  /** Host name, lower-case, without port. */
  host: string;
  /** Port, when the URL names one. */
  port: number | null;
  /** The path without leading slash, e.g. `acme/widget.git`. */
  path: string;
  /** User of an ssh URL (`git` in `git@github.com:…`); never a password. */
  user: string | null;
  /** The URL exactly as given (credential-free: url.ts refuses passwords). */
  original: string;
}

/** Where a repository lives on its host, from the provider's URL layout. */
export interface RepoLocation {
  host: string;
  /** One or more path segments, e.g. `acme` (GitHub), `group/sub` (GitLab), `org/project` (Azure DevOps). */
  owner: string;
  name: string;
}

/** A stored credential as given at registration; only git/credential-* ever sees it in clear. */
export interface CredentialInput {
  token: string;
  username?: string | undefined;
}

/** What git's credential protocol receives: `username=` and `password=`. */
export interface CredentialForm {
  username: string;
  password: string;
}

/** A hosting provider (GitHub, GitLab, Azure DevOps, or a plugin). */
export interface GitProvider {
  /** Stable id stored on the repository row and used in the clone path. */
  readonly id: string;
  /** Human name for messages. */
  readonly displayName: string;
  /** Whether a URL on `host` is this provider's without an explicit `provider` (e.g. github.com). */
  claimsHost(host: string): boolean;
  /** The URL layout: owner and name from the path, or an error message when the path does not fit. */
  parseLocation(url: RemoteUrl): RepoLocation | { error: string };
  /**
   * The URL the managed route clones and fetches from (origin rule). Given the parsed URL so a
   * self-hosted or loopback server keeps its scheme, host and port.
   */
  cloneUrl(url: RemoteUrl, loc: RepoLocation): string;
  /** How the token is presented to git (GitHub: password; GitLab: user `oauth2`; Azure DevOps: PAT basic). */
  credentialForm(cred: CredentialInput): CredentialForm;
  /** The ref a pull request's head is published under, or null when the provider has none. */
  pullRequestRef(prNumber: number): string | null;
  /**
   * Extra origin check before a managed refresh (Azure DevOps: the checkout path must be the
   * scoped path); answers an error message or null. Optional.
   */
  verifyCheckout?(input: { expectedPath: string; actualPath: string; loc: RepoLocation }): string | null;
}

/** Splits `a/b/c(.git)` into segments without empties; strips one trailing `.git`. */
export function pathSegments(path: string): string[] {
  return path
    .replace(/\.git$/, "")
    .split("/")
    .filter((s) => s.length > 0);
}

/** Rebuilds an http(s) base URL for a parsed URL: scheme, host and port kept, no path. */
export function httpBase(url: RemoteUrl): string {
  const scheme = url.scheme === "http" ? "http" : "https";
  const host = url.host.includes(":") ? `[${url.host}]` : url.host;
  return `${scheme}://${host}${url.port !== null && url.scheme !== "ssh" ? `:${url.port}` : ""}`;
}
