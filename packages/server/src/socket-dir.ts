import { chmodSync, lstatSync, mkdirSync } from "node:fs";

/** Longest Unix socket path Linux takes (108 bytes with the terminating NUL). */
export const SOCKET_PATH_MAX = 107;

/**
 * A directory that holds Grove's Unix sockets (MCP-1's gateway, SBX-2's egress proxies), made
 * private to this user: created 0700 where missing, tightened to 0700 where it is this user's
 * own, refused where it is not a directory (a symbolic link included) or belongs to someone
 * else. Such a directory may sit in the system temp dir under a predictable name, where another
 * local user could have made it first: that user could then swap the socket for one of their own
 * and receive what Grove's agents send to it (their MCP tokens, their model traffic).
 */
export function privateSocketDir(dir: string, uid: number | undefined = process.getuid?.()): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} holds Grove's sockets and is not a directory (a symbolic link?): remove it and start again`);
  if (uid !== undefined && st.uid !== uid)
    throw new Error(`${dir} holds Grove's sockets and belongs to user ${st.uid}, not to this user (${uid}): remove it and start again`);
  if ((st.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
  return dir;
}
