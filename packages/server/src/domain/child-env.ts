/**
 * Variables of the server's own environment that grant access to Grove itself: the API token
 * and the database URL (with its password). Agents, setup scripts and git hooks run code the
 * person did not write; they inherit the server's environment minus these (RR-2, SEC-1).
 */
export const SERVER_SECRETS: readonly string[] = ["GROVE_AUTH_TOKEN", "GROVE_DATABASE_URL", "PGPASSWORD"];

/** A copy of `env` without the server's secrets, for every child process Grove starts. */
export function childEnv(env: NodeJS.ProcessEnv, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const k of SERVER_SECRETS) delete out[k];
  return { ...out, ...extra };
}
