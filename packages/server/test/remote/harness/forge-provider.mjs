// A provider plugin as a person would write one (RR-8): a plain ES module whose default export
// implements GitProvider (packages/server/src/providers/provider.ts). Registered only through
// GROVE_PROVIDER_PLUGINS=<absolute path of this file>; nothing else in Grove knows "forge".
// Layout: https://<host>/r/<owner>/<name>; token as the password of user "forge-bot";
// pull requests at refs/changes/<N>/head.
const segments = (path) =>
  path
    .replace(/\.git$/, "")
    .split("/")
    .filter((s) => s.length > 0);

export default {
  id: "forge",
  displayName: "Forge",
  claimsHost: (host) => host === "forge.example",
  parseLocation(url) {
    const s = segments(url.path);
    if (s.length !== 3 || s[0] !== "r") return { error: "a Forge URL names r/<owner>/<name>" };
    return { host: url.host, owner: s[1], name: s[2] };
  },
  cloneUrl(url, loc) {
    const scheme = url.scheme === "http" ? "http" : "https";
    return `${scheme}://${url.host}${url.port !== null ? `:${url.port}` : ""}/r/${loc.owner}/${loc.name}`;
  },
  credentialForm: (c) => ({ username: "forge-bot", password: c.token }),
  pullRequestRef: (n) => `refs/changes/${n}/head`,
};
