import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Directories of GROVE_HOME whose contents are the user's checkouts (worktrees, managed clones)
 * or an agent's own state: only the directory itself is closed to other users (0700), which
 * already makes everything beneath unreachable; the files keep the modes git gives them.
 */
const CHECKOUT_DIRS = new Set(["tasks", "clones", "agents"]);

/**
 * SEC-6: GROVE_HOME and Grove's own files in it are private to the user. Creates the home 0700
 * and, on every start-up (an existing home may predate this rule), sets every directory of
 * Grove's own state to 0700 and every file to 0600: the database with its WAL and SHM, logs,
 * ACP transcripts, the credential key, the runner id. Symbolic links are never followed.
 */
export function secureHome(home: string): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
  // Created here so that git and mkdir -p beneath them never create them with the umask's mode.
  for (const d of ["logs", ...CHECKOUT_DIRS]) mkdirSync(join(home, d), { recursive: true, mode: 0o700 });
  tighten(home, true);
}

function tighten(dir: string, top: boolean): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    let st;
    try {
      st = lstatSync(path);
    } catch {
      continue; // removed meanwhile
    }
    if (st.isSymbolicLink()) continue;
    if (st.isDirectory()) {
      if ((st.mode & 0o777) !== 0o700) chmodSync(path, 0o700);
      if (!(top && CHECKOUT_DIRS.has(name))) tighten(path, false);
    } else if (st.isFile() && (st.mode & 0o777) !== 0o600) {
      chmodSync(path, 0o600);
    }
  }
}
