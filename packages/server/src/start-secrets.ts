import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, writeSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * SBX-5: the secrets a server starts with, kept out of places another process of the same user
 * can read (the process's start-time environment in `/proc/<pid>/environ` above all).
 */

/** The person token's file in GROVE_HOME (no GROVE_AUTH_TOKEN): the CLI reads it, agents cannot (SBX-1). */
export const PERSON_TOKEN_FILE = "person-token";

/**
 * The per-home person token (SBX-5): created once (32 random bytes, hex) in a 0600 file, then
 * read. It authenticates the person's channels — the CLI sends it as a bearer token, the page
 * gets it as an HttpOnly cookie — for the actions only the person may take.
 */
export function ensurePersonToken(home: string): string {
  const path = join(home, PERSON_TOKEN_FILE);
  try {
    const existing = readFileSync(path, "utf8").trim();
    if (/^[0-9a-f]{64}$/.test(existing)) return existing;
  } catch {
    // first start of this home
  }
  const token = randomBytes(32).toString("hex");
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  return token;
}

/**
 * Removes `name` from this process's start-time environment: its value bytes are overwritten in
 * place (through `/proc/self/mem`, at the environment's own address range), so
 * `/proc/<pid>/environ` no longer shows it, and it is deleted from `process.env`, so no child
 * inherits it. Linux only; elsewhere only `process.env` forgets it. Returns whether the
 * start-time copy was overwritten. Call after the value was read.
 */
export function scrubStartEnvironment(name: string): boolean {
  const had = process.env[name] !== undefined;
  delete process.env[name];
  if (!had || process.platform !== "linux") return false;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // Fields after the command name; env_start and env_end are fields 50 and 51 of proc(5).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const envStart = Number(fields[50 - 3]);
    const raw = readFileSync("/proc/self/environ");
    const key = Buffer.from(`${name}=`);
    let overwritten = false;
    for (let i = raw.indexOf(key); i !== -1; i = raw.indexOf(key, i + 1)) {
      if (i > 0 && raw[i - 1] !== 0) continue; // a longer name that ends with this one
      const end = raw.indexOf(0, i);
      const from = i + key.length;
      const length = (end === -1 ? raw.length : end) - from;
      if (length <= 0) continue;
      const fd = openSync("/proc/self/mem", "r+");
      try {
        writeSync(fd, Buffer.alloc(length, 0x2a), 0, length, envStart + from);
      } finally {
        closeSync(fd);
      }
      overwritten = true;
    }
    return overwritten;
  } catch {
    return false;
  }
}
