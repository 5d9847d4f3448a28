import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpGateway, mcpSocketPath } from "../../src/mcp/gateway.js";
import { McpTokens } from "../../src/mcp/tokens.js";
import { privateSocketDir, SOCKET_PATH_MAX } from "../../src/socket-dir.js";
import { tempDir } from "../fixture/git.js";

const uid = process.getuid!();

describe("MCP-1 SBX-2 the directories of Grove's Unix sockets are private to the user", () => {
  const removeAfter: string[] = [];
  afterEach(() => {
    for (const p of removeAfter.splice(0)) rmSync(p, { recursive: true, force: true });
  });

  it("MCP-1 SBX-2 a missing directory is created 0700; an own directory with a looser mode is tightened to 0700", async () => {
    const root = await tempDir("grove-sockdir-");
    const made = privateSocketDir(join(root, "run", "egress"));
    expect(statSync(made).mode & 0o777).toBe(0o700);
    const loose = join(root, "loose");
    mkdirSync(loose);
    chmodSync(loose, 0o777);
    privateSocketDir(loose);
    expect(statSync(loose).mode & 0o777).toBe(0o700);
  });

  it("MCP-1 SBX-2 a symbolic link or another user's directory at that path is refused, and left as it was", async () => {
    const root = await tempDir("grove-sockdir-");
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    chmodSync(elsewhere, 0o777);
    const link = join(root, "link");
    symlinkSync(elsewhere, link);
    expect(() => privateSocketDir(link)).toThrow(/not a directory/);
    expect(statSync(elsewhere).mode & 0o777).toBe(0o777);
    const theirs = join(root, "theirs");
    mkdirSync(theirs);
    chmodSync(theirs, 0o777);
    expect(() => privateSocketDir(theirs, uid + 1)).toThrow(new RegExp(`belongs to user ${uid}, not to this user \\(${uid + 1}\\)`));
    expect(statSync(theirs).mode & 0o777).toBe(0o777);
  });

  it("MCP-1 a home too deep for a socket path: the gateway's directory in the temp dir; planted there first as a link, the gateway refuses to listen", async () => {
    const home = join(await tempDir("grove-sockdir-"), "h".repeat(110));
    const socketPath = mcpSocketPath(home);
    expect(socketPath.startsWith(join(tmpdir(), "grove-mcp-"))).toBe(true);
    expect(Buffer.byteLength(socketPath)).toBeLessThanOrEqual(SOCKET_PATH_MAX);
    const planted = await tempDir("grove-sockdir-planted-");
    removeAfter.push(dirname(socketPath));
    symlinkSync(planted, dirname(socketPath));
    const gateway = new McpGateway({
      tokens: new McpTokens(),
      backend: { call: async () => undefined, record: () => undefined },
      log: { warn: () => undefined },
      version: "test",
    });
    await expect(gateway.listen(socketPath)).rejects.toThrow(/not a directory/);
    expect(readdirSync(planted)).toEqual([]);
    expect(lstatSync(dirname(socketPath)).isSymbolicLink()).toBe(true);
    await gateway.close();
    expect(existsSync(join(planted, "mcp.sock"))).toBe(false);
  });
});
