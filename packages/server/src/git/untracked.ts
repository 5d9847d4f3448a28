import { closeSync, lstatSync, openSync, readSync } from "node:fs";
import { lstat, open, readlink } from "node:fs/promises";
import { join } from "node:path";

/** Line count and binary flag of one untracked file, as `git diff --no-index --numstat /dev/null <file>` reports it. */
export interface UntrackedCount {
  path: string;
  lines: number;
  binary: boolean;
}

// git's buffer_is_binary(): a NUL within the first 8000 bytes.
const FIRST_FEW_BYTES = 8000;
const CHUNK = 64 * 1024;

function linesOf(text: Buffer | string): number {
  const s = typeof text === "string" ? Buffer.from(text) : text;
  if (s.length === 0) return 0;
  let n = 0;
  for (let i = s.indexOf(0x0a); i !== -1; i = s.indexOf(0x0a, i + 1)) n++;
  return s[s.length - 1] === 0x0a ? n : n + 1;
}

async function countFile(abs: string, buf: Buffer): Promise<{ lines: number; binary: boolean }> {
  const handle = await open(abs, "r");
  try {
    let lines = 0;
    let last = -1;
    let offset = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      if (offset < FIRST_FEW_BYTES && chunk.subarray(0, FIRST_FEW_BYTES - offset).includes(0)) return { lines: 0, binary: true };
      for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) lines++;
      last = chunk[bytesRead - 1]!;
      offset += bytesRead;
    }
    return { lines: last === -1 || last === 0x0a ? lines : lines + 1, binary: false };
  } finally {
    await handle.close();
  }
}

/** Files counted at once: enough to keep libuv's thread pool busy, few enough to bound open files. */
const PARALLEL = 16;

/**
 * Counts untracked files in Node rather than one `git diff --no-index` per file: untracked
 * files can be thousands (CHG-1 keeps git processes per call constant). A symlink counts as its
 * target text (what git stores); a nested repository (`dir/`) or an unreadable file counts 0.
 * Known difference: `.gitattributes` binary/textconv settings are not applied to untracked files.
 */
/** Files up to this size are counted with synchronous reads (see countUntracked). */
const SMALL = CHUNK;
/** Synchronous files counted before the event loop gets a turn. */
const SYNC_BATCH = 256;

/** A small regular file counted with blocking reads; undefined when it is not one (or changed meanwhile). */
function countSmallSync(abs: string, buf: Buffer): { lines: number; binary: boolean } | undefined {
  const st = lstatSync(abs, { throwIfNoEntry: false });
  if (!st || !st.isFile() || st.size > SMALL) return undefined;
  const fd = openSync(abs, "r");
  try {
    const n = readSync(fd, buf, 0, SMALL, 0);
    // Grew past the fast path's size since the lstat: counted the ordinary way.
    if (n === SMALL) return undefined;
    const chunk = buf.subarray(0, n);
    if (chunk.subarray(0, FIRST_FEW_BYTES).includes(0)) return { lines: 0, binary: true };
    return { lines: linesOf(chunk), binary: false };
  } finally {
    closeSync(fd);
  }
}

export async function countUntracked(cwd: string, paths: readonly string[]): Promise<UntrackedCount[]> {
  const out: UntrackedCount[] = new Array<UntrackedCount>(paths.length);
  // Small regular files (nearly all untracked files) are counted with blocking reads, a batch at
  // a time: four promise round trips per file cost more main-thread time than the reads, which
  // competes with the git processes of the same Changes on a 2-core machine.
  const rest: number[] = [];
  const small = Buffer.allocUnsafe(SMALL);
  for (let i = 0; i < paths.length; i++) {
    if (i > 0 && i % SYNC_BATCH === 0) await new Promise((r) => setImmediate(r));
    const path = paths[i]!;
    try {
      const c = countSmallSync(join(cwd, path), small);
      if (c) out[i] = { path, ...c };
      else rest.push(i);
    } catch {
      rest.push(i);
    }
  }
  let next = 0;
  // A few workers, each with its own buffer: one file after another was 5 file-system round trips
  // per file in a row, a third of the raw git time at 500 untracked files.
  const worker = async (): Promise<void> => {
    const buf = Buffer.allocUnsafe(CHUNK);
    for (let k = next++; k < rest.length; k = next++) {
      const i = rest[k]!;
      const path = paths[i]!;
      const abs = join(cwd, path);
      try {
        const st = await lstat(abs);
        if (st.isSymbolicLink()) out[i] = { path, lines: linesOf(await readlink(abs)), binary: false };
        else if (st.isFile()) out[i] = { path, ...(await countFile(abs, buf)) };
        else out[i] = { path, lines: 0, binary: false };
      } catch {
        // Vanished between `git status` and now (an agent is editing): report it without counts.
        out[i] = { path, lines: 0, binary: false };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, rest.length) }, worker));
  return out;
}
