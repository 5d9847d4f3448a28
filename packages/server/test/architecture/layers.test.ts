import { resolve } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../../..");

/** The layer rules of STYLE.md are lint rules; this proves they bite, with the seam named. */
describe("architecture: layer rules enforced by ESLint", () => {
  const eslint = new ESLint({ cwd: ROOT });
  const lint = async (file: string, code: string) => {
    const [r] = await eslint.lintText(code, { filePath: resolve(ROOT, file) });
    return (r?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
  };

  it("git/ cannot import store/ or a database driver", async () => {
    expect(await lint("packages/server/src/git/x.ts", 'import { Store } from "../store/store.js";\nexport const y = Store;\n')).toEqual([
      expect.stringContaining("git/ sees only domain/"),
    ]);
    expect((await lint("packages/server/src/git/x.ts", 'import pg from "pg";\nexport const y = pg;\n'))[0]).toContain("Only src/store");
  });

  it("only git/ and agents/ start processes", async () => {
    const code = 'import { spawn } from "node:child_process";\nexport const y = spawn;\n';
    expect((await lint("packages/server/src/orchestrator/x.ts", code))[0]).toContain("Only src/git");
    expect(await lint("packages/server/src/git/x.ts", code)).toEqual([]);
    expect(await lint("packages/server/src/agents/x.ts", code)).toEqual([]);
  });

  it("api/ calls the orchestrator, never a lower layer; domain/ is pure", async () => {
    expect((await lint("packages/server/src/api/x.ts", 'import { GitRunner } from "../git/runner.js";\nexport const y = GitRunner;\n'))[0]).toContain("api/ calls the orchestrator");
    expect((await lint("packages/server/src/domain/x.ts", 'import { AgentRuntime } from "../agents/runtime.js";\nexport const y = AgentRuntime;\n'))[0]).toContain("domain/ is pure");
    expect(await lint("packages/server/src/orchestrator/x.ts", 'import { GitRunner } from "../git/runner.js";\nexport const y = GitRunner;\n')).toEqual([]);
  });
});
