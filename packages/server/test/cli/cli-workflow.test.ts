import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { runGrove } from "./run-cli.js";

const GOOD =
  'steps:\n  - id: review\n    onEnter:\n      - action: start_session\n        agent: scripted\n        prompt: "review {{title}}"\n    on:\n      completed: in_progress\n';
const BAD = "steps:\n  - id: review\n    onEnter:\n      - action: start_session\n        agent: nobody\n        prompt: go\n";

// WF-1 with the bundled CLI: apply a YAML file, list, show and export it; a bad file names its line.
describe("WF-1 grove workflow ls|show|apply|export", () => {
  let srv: TestServer;
  let dir: string;
  const grove = (...args: string[]) => runGrove([...args, "--server", srv.url]);

  beforeAll(async () => {
    srv = await startTestServer("sqlite");
    dir = await mkdtemp(join(tmpdir(), "grove-wf-"));
    await writeFile(join(dir, "reviewer.yaml"), GOOD);
    await writeFile(join(dir, "broken.yaml"), BAD);
  });
  afterAll(async () => {
    await srv?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("WF-1 apply stores the file under its name, ls lists it after the default, show and export print the YAML", async () => {
    const applied = await grove("workflow", "apply", join(dir, "reviewer.yaml"));
    expect(applied.stderr).toBe("");
    expect(applied.stdout).toBe("applied: reviewer version 1\n");
    expect((await grove("workflow", "apply", join(dir, "reviewer.yaml"), "--if-version", "0")).stderr).toMatch(/^error: workflow_version_conflict: /);
    const ls = (await grove("workflow", "ls")).stdout.split("\n");
    expect(ls[0]).toMatch(/^NAME\s+SCOPE\s+VERSION\s+STATE\s+AUTOMATED\s+UPDATED$/);
    expect(ls[1]).toMatch(/^default\s+global\s+1\s+built-in\s+-\s+-$/);
    expect(ls[2]).toMatch(/^reviewer\s+global\s+1\s+active\s+review\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect((await grove("workflow", "show", "reviewer")).stdout).toBe(GOOD);
    expect((await grove("workflow", "export")).stdout).toBe(`# workflow: reviewer (version 1)\n${GOOD}`);
    expect(JSON.parse((await grove("workflow", "show", "reviewer", "--json")).stdout)).toMatchObject({ name: "reviewer", version: 1, source: GOOD });
  });

  it("WF-1 a bad file fails with invalid_workflow naming the line; nothing is stored", async () => {
    const r = await grove("workflow", "apply", join(dir, "broken.yaml"));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: invalid_workflow: line 5: steps\.0\.onEnter\.0\.agent: unknown agent profile "nobody"/);
    expect((await grove("workflow", "show", "broken")).stderr).toMatch(/^error: not_found: /);
    expect((await grove("workflow", "apply", join(dir, "missing.yaml"))).stderr).toMatch(/^error: file_not_found: /);
  });
});
