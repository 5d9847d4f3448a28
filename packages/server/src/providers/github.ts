import { httpBase, pathSegments, type GitProvider } from "./provider.js";

/** GitHub: `host/<owner>/<name>(.git)`; the token is the basic-auth password; PRs at `refs/pull/N/head`. */
export const github: GitProvider = {
  id: "github",
  displayName: "GitHub",
  claimsHost: (host) => host === "github.com" || host === "www.github.com",
  parseLocation(url) {
    const s = pathSegments(url.path);
    if (s.length !== 2) return { error: "a GitHub URL names exactly <owner>/<name>" };
    return { host: url.host, owner: s[0]!, name: s[1]! };
  },
  cloneUrl: (url, loc) => `${httpBase(url)}/${loc.owner}/${loc.name}.git`,
  // GitHub ignores the user name for token auth; x-access-token is what its apps use.
  credentialForm: (c) => ({ username: c.username || "x-access-token", password: c.token }),
  pullRequestRef: (n) => `refs/pull/${n}/head`,
};
