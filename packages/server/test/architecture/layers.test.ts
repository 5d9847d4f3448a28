import { resolve } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../../..");

/** The layer rules of docs/architecture.md are lint rules; this proves they bite, with the seam named. */
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
    expect((await lint("packages/server/src/api/x.ts", 'import { GitRunner } from "../git/runner.js";\nexport const y = GitRunner;\n'))[0]).toContain(
      "api/ calls the orchestrator",
    );
    expect(
      (await lint("packages/server/src/domain/x.ts", 'import { AgentRuntime } from "../agents/runtime.js";\nexport const y = AgentRuntime;\n'))[0],
    ).toContain("domain/ is pure");
    expect(await lint("packages/server/src/orchestrator/x.ts", 'import { GitRunner } from "../git/runner.js";\nexport const y = GitRunner;\n')).toEqual([]);
  });

  it("the orchestrator's use-case folders import only folders on lower levels; the floor files import none; nobody imports the facade", async () => {
    const probe = (path: string) => `import { x } from "${path}";\nexport const y = x;\n`;
    expect((await lint("packages/server/src/orchestrator/tasks/x.ts", probe("../sessions/session-ops.js")))[0]).toContain(
      "orchestrator/tasks/ imports only the folders below it",
    );
    expect((await lint("packages/server/src/orchestrator/lifecycle/x.ts", probe("../review/review.js")))[0]).toContain("ORCHESTRATOR_LEVELS");
    expect((await lint("packages/server/src/orchestrator/changes/x.ts", probe("../lifecycle/lifecycle.js")))[0]).toContain("lifecycle");
    expect((await lint("packages/server/src/orchestrator/refresh/x.ts", probe("../inbox/inbox-ops.js")))[0]).toContain("inbox");
    expect((await lint("packages/server/src/orchestrator/context2.ts", probe("./sessions/session-ops.js")))[0]).toContain("the floor");
    expect((await lint("packages/server/src/orchestrator/review/x.ts", probe("../orchestrator.js")))[0]).toContain("the facade");
    expect((await lint("packages/server/src/orchestrator/sessions/x.ts", probe("../orchestrator.js")))[0]).toContain("the facade");
    // Downward is allowed, and the layer rules still hold inside the folders.
    expect(await lint("packages/server/src/orchestrator/review/x.ts", probe("../sessions/session-ops.js"))).toEqual([]);
    expect(await lint("packages/server/src/orchestrator/sessions/x.ts", probe("../tasks/tasks.js"))).toEqual([]);
    expect(await lint("packages/server/src/orchestrator/orchestrator.ts", probe("./review/review.js"))).toEqual([]);
    expect((await lint("packages/server/src/orchestrator/tasks/x.ts", probe("../../api/app.js")))[0]).toContain("never sees HTTP");
  });
});
