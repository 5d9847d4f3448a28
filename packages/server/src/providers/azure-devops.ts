import { httpBase, pathSegments, type GitProvider } from "./provider.js";

/**
 * Azure DevOps: `host/<org>/<project>/_git/<name>`; a PAT goes as the basic-auth password with any
 * user; PRs at `refs/pull/N/head`. Its checkout path is verified before every managed refresh
 * (RR-4): a clone found anywhere but its scoped path is refused.
 */
export const azureDevops: GitProvider = {
  id: "azure-devops",
  displayName: "Azure DevOps",
  claimsHost: (host) => host === "dev.azure.com" || host.endsWith(".visualstudio.com"),
  parseLocation(url) {
    const s = pathSegments(url.path);
    if (s.length !== 4 || s[2] !== "_git") return { error: "an Azure DevOps URL names <org>/<project>/_git/<name>" };
    return { host: url.host, owner: `${s[0]}/${s[1]}`, name: s[3]! };
  },
  // No `.git` suffix: Azure DevOps repository URLs do not carry one.
  cloneUrl: (url, loc) => `${httpBase(url)}/${loc.owner}/_git/${loc.name}`,
  credentialForm: (c) => ({ username: c.username || "pat", password: c.token }),
  pullRequestRef: (n) => `refs/pull/${n}/head`,
  verifyCheckout: ({ expectedPath, actualPath }) =>
    expectedPath === actualPath ? null : `the checkout at ${actualPath} is not the scoped path ${expectedPath}`,
};
