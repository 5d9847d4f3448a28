// Compiles native/grove-spawn.c into dist/native/grove-spawn.node: git's seam starts git through it
// without a fork (docs/decisions/2026-12-07-git-without-fork.md). It needs a C compiler (`$CC`,
// else `cc`) and Node's headers (`<node prefix>/include/node`, as the official builds and
// Debian's nodejs ship them). Without either, Grove still works: git is started by
// child_process.spawn instead, and this script says so once and succeeds.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** The compiled addon (packages/server/src/git/fast-spawn.ts loads it from here). */
export const NATIVE_SPAWN = here("../dist/native/grove-spawn.node");
const SOURCE = here("../native/grove-spawn.c");

/** Node's headers for this node: the official layout, then where Debian's package puts them. */
function nodeHeaders() {
  const candidates = [resolve(dirname(process.execPath), "../include/node"), "/usr/include/node"];
  return candidates.find((dir) => existsSync(join(dir, "node_api.h")));
}

function mtime(path) {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? -1;
}

/** Builds the addon when it is missing or older than its source; returns whether it is there. */
export function buildNative() {
  if (mtime(NATIVE_SPAWN) >= mtime(SOURCE)) return true;
  const headers = nodeHeaders();
  if (!headers) {
    rmSync(NATIVE_SPAWN, { force: true });
    console.log("grove-spawn: Node's headers (include/node/node_api.h) not found; git will be started by child_process");
    return false;
  }
  mkdirSync(dirname(NATIVE_SPAWN), { recursive: true });
  const partial = `${NATIVE_SPAWN}.${process.pid}.tmp`;
  const cc = process.env.CC || "cc";
  try {
    execFileSync(cc, ["-O2", "-shared", "-fPIC", "-Wall", "-Werror", "-I", headers, "-o", partial, SOURCE], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    renameSync(partial, NATIVE_SPAWN);
    return true;
  } catch (e) {
    rmSync(partial, { force: true });
    // An addon built from an older source must not be loaded against newer code.
    rmSync(NATIVE_SPAWN, { force: true });
    const why =
      e.code === "ENOENT"
        ? `no C compiler (${cc})`
        : String(e.stderr ?? e.message)
            .trim()
            .split("\n")[0];
    console.log(`grove-spawn: not built (${why}); git will be started by child_process`);
    return false;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) buildNative();
