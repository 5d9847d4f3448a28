import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/;

function firstLine(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").split("\n")[0]!.trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The bearer token the CLI sends (SBX-5, the person's channel): `GROVE_AUTH_TOKEN`, else the
 * file `GROVE_AUTH_TOKEN_FILE` names, else — for a server on this machine only — the person
 * token the server minted in `$GROVE_HOME/person-token` (default `~/.grove`), which only this
 * user (and no sandboxed agent) can read. A remote server never gets the local person token.
 */
export function cliToken(env: NodeJS.ProcessEnv, server: string): string | undefined {
  if (env.GROVE_AUTH_TOKEN) return env.GROVE_AUTH_TOKEN;
  if (env.GROVE_AUTH_TOKEN_FILE) return firstLine(env.GROVE_AUTH_TOKEN_FILE);
  let host: string;
  try {
    host = new URL(server.trim()).hostname;
  } catch {
    return undefined;
  }
  if (!LOOPBACK.test(host)) return undefined;
  const home = resolve(env.GROVE_HOME || join(homedir(), ".grove"));
  return firstLine(join(home, "person-token"));
}
