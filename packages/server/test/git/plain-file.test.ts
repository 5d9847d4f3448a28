import { execFileSync } from "node:child_process";
import { rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readPlainFile, readPlainText } from "../../src/git/plain-file.js";
import { unresolvedPaths } from "../../src/git/rebase.js";
import { tempDir } from "../fixture/git.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function scratch(): Promise<string> {
  const d = await tempDir("grove-plain-");
  dirs.push(d);
  return d;
}

describe("SBX-4 reading files an agent can write", () => {
  it("SBX-4 a regular file is read; a FIFO, a symlink, a directory, a missing path and a file past the bound are null, at once", async () => {
    const d = await scratch();
    await writeFile(join(d, "HEAD"), "ref: refs/heads/main\n");
    execFileSync("mkfifo", [join(d, "fifo")]);
    await symlink(join(d, "HEAD"), join(d, "link"));
    await writeFile(join(d, "big"), Buffer.alloc(4097, 0x61));
    expect(await readPlainText(join(d, "HEAD"))).toBe("ref: refs/heads/main\n");
    expect(await readPlainFile(join(d, "fifo"))).toBeNull();
    expect(await readPlainFile(join(d, "link"))).toBeNull();
    expect(await readPlainFile(d)).toBeNull();
    expect(await readPlainFile(join(d, "missing"))).toBeNull();
    expect(await readPlainFile(join(d, "big"), 4096)).toBeNull();
    expect((await readPlainFile(join(d, "big"), 4097))?.length).toBe(4097);
    expect((await readPlainFile(join(d, "big"), 100_000))?.length).toBe(4097);
  });

  it("SBX-4 a conflicted path replaced by a FIFO is not read (the check answers at once)", async () => {
    const d = await scratch();
    await writeFile(join(d, "a.txt"), "<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n");
    execFileSync("mkfifo", [join(d, "b.txt")]);
    expect(await unresolvedPaths(d, ["a.txt", "b.txt", "gone.txt"])).toEqual(["a.txt"]);
  });
});
