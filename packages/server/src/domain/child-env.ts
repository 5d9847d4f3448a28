/**
 * SEC-7: the environment of every process Grove starts (agents, setup scripts, git and the hooks
 * git runs) is built from an ALLOW-list, never by copying the server's environment. The server's
 * environment holds whatever the person's shell exported (`GITHUB_TOKEN`, cloud keys, …) plus
 * Grove's own settings (`GROVE_AUTH_TOKEN`, `GROVE_DATABASE_URL`); an agent, a setup script or a
 * hook runs code the person did not write and gets only what it needs to work as the person.
 */

/**
 * Variables every child gets from the server's environment when they are set: identity and
 * locale, the terminal and shell, the temp dir, the ssh agent socket, and git's author/committer
 * identity (but no git plumbing such as `GIT_DIR`, which would point a child at another
 * repository). `LC_*` is a prefix (see {@link isAllowedByDefault}).
 */
export const BASE_ALLOWED_ENV: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LANG",
  "TERM",
  "SHELL",
  "TMPDIR",
  "SSH_AUTH_SOCK",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_AUTHOR_DATE",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "GIT_COMMITTER_DATE",
];

/**
 * Variables that grant access to Grove itself (the API token; the database URL with its
 * password). No child ever gets them, not even when a profile's `inheritEnv` names them: the
 * profile loader refuses such a profile (RR-2, SEC-1).
 */
export const SERVER_SECRETS: readonly string[] = ["GROVE_AUTH_TOKEN", "GROVE_DATABASE_URL", "GROVE_CLUSTER_SECRET", "PGPASSWORD"];

/** A valid name for `inheritEnv`: what a POSIX shell can export. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether `name` passes the base allow-list (the fixed names and every `LC_*` locale variable). */
export function isAllowedByDefault(name: string): boolean {
  return BASE_ALLOWED_ENV.includes(name) || (name.startsWith("LC_") && ENV_NAME.test(name));
}

/**
 * The environment of a child process: from `env` (the server's), only the base allow-list plus
 * the names in `inherit`; then `extra` (values Grove or a profile sets on purpose) on top.
 * {@link SERVER_SECRETS} are dropped even when `inherit` names them; an `extra` value of
 * `undefined` removes the variable.
 */
export function childEnv(env: NodeJS.ProcessEnv, extra: Record<string, string | undefined> = {}, inherit: readonly string[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || SERVER_SECRETS.includes(k)) continue;
    if (isAllowedByDefault(k) || inherit.includes(k)) out[k] = v;
  }
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}
