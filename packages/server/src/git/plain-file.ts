import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";

/**
 * SBX-4: the bytes of a file an agent can write (its worktree's files, its worktree's admin dir,
 * the common dir's refs), or null when it is missing, not a regular file or larger than
 * `maxBytes`. A FIFO planted where Grove expects `HEAD` would block a plain read — and with it
 * one of the few threads Node does file I/O on — for as long as nobody writes to it; a symlink
 * would lead the read elsewhere. So the file is opened without blocking and without following a
 * final symlink, checked on the opened descriptor (nothing swapped in after a check is read), and
 * read at most `maxBytes + 1` bytes far.
 */
export async function readPlainFile(path: string, maxBytes = 1024 * 1024, accept?: (opened: FileHandle) => Promise<boolean>): Promise<Buffer | null> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!(await handle.stat()).isFile()) return null;
    // The caller's own check of what was opened (SEC-2: where the descriptor leads).
    if (accept && !(await accept(handle))) return null;
    const buf = Buffer.alloc(Math.min(maxBytes + 1, 64 * 1024));
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, maxBytes + 1 - total), null);
      if (bytesRead === 0) break;
      parts.push(Buffer.from(buf.subarray(0, bytesRead)));
      total += bytesRead;
      if (total > maxBytes) return null;
    }
    return Buffer.concat(parts, total);
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** {@link readPlainFile} as UTF-8 text. */
export async function readPlainText(path: string, maxBytes?: number, accept?: (opened: FileHandle) => Promise<boolean>): Promise<string | null> {
  const bytes = await readPlainFile(path, maxBytes, accept);
  return bytes === null ? null : bytes.toString("utf8");
}
