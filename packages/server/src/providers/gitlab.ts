import { httpBase, pathSegments, type GitProvider } from "./provider.js";

/** GitLab: `host/<group>[/<subgroup>…]/<name>(.git)`; tokens go as user `oauth2`; MRs at `refs/merge-requests/N/head`. */
export const gitlab: GitProvider = {
  id: "gitlab",
  displayName: "GitLab",
  claimsHost: (host) => host === "gitlab.com",
  parseLocation(url) {
    const s = pathSegments(url.path);
    if (s.length < 2) return { error: "a GitLab URL names <group>[/<subgroup>…]/<name>" };
    if (s.includes("-")) return { error: "a GitLab URL must point at the repository, not a page (/-/)" };
    return { host: url.host, owner: s.slice(0, -1).join("/"), name: s[s.length - 1]! };
  },
  cloneUrl: (url, loc) => `${httpBase(url)}/${loc.owner}/${loc.name}.git`,
  credentialForm: (c) => ({ username: "oauth2", password: c.token }),
  pullRequestRef: (n) => `refs/merge-requests/${n}/head`,
};
