import { describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { serverPerFile } from "../fixture/server.js";

const REVIEWER = `# reviewer loop
steps:
  - id: review
    onEnter:
      - action: start_session
        agent: scripted
        prompt: "review {{title}}"
    on:
      completed: in_progress
  - id: done
    guard: merged_pull_request
`;

/** A YAML with one fault on `line`, the message it must give. */
const BAD: { what: string; yaml: string; line: number; message: RegExp }[] = [
  { what: "unknown action", yaml: "steps:\n  - id: review\n    onEnter:\n      - action: deploy\n", line: 4, message: /unknown action "deploy"/ },
  {
    what: "unknown agent profile",
    yaml: "steps:\n  - id: review\n    onEnter:\n      - action: start_session\n        agent: nosuch\n        prompt: go\n",
    line: 5,
    message: /unknown agent profile "nosuch"/,
  },
  { what: "transition to an unknown step", yaml: "steps:\n  - id: review\n    on:\n      completed: staging\n", line: 4, message: /unknown step "staging"/ },
  {
    what: "cycle of automatic moves without a guard",
    yaml: "steps:\n  - id: review\n    onEnter:\n      - action: move\n        to: in_progress\n  - id: in_progress\n    onEnter:\n      - action: move\n        to: review\n",
    line: 9,
    message: /cycle of automatic moves without a guard: review → in_progress → review/,
  },
  {
    what: "unknown template field",
    yaml: 'steps:\n  - id: review\n    onEnter:\n      - action: start_session\n        agent: scripted\n        prompt: "fix {{secret}}"\n',
    line: 6,
    message: /unknown template field \{\{secret\}\}/,
  },
  { what: "unknown field", yaml: "steps:\n  - id: review\n    wip: 3\n", line: 3, message: /unknown field/ },
  { what: "YAML syntax", yaml: "steps:\n  - id: review\n   on: [\n", line: 3, message: /./ },
  { what: "wrong type", yaml: "steps:\n  - id: review\n    wipLimit: many\n", line: 3, message: /wipLimit/ },
  // SEC-8: an alias to no anchor (a bare `**/*` is one) and a self-referencing anchor are the
  // person's YAML errors, never a 500.
  { what: "unresolved alias", yaml: "**/*", line: 1, message: /alias/ },
  { what: "unresolved alias in a step", yaml: "steps:\n  - id: review\n    onEnter: *actions\n", line: 3, message: /alias/ },
  { what: "recursive alias", yaml: "steps: &s\n  - id: review\n    onEnter: [*s]\n", line: 3, message: /alias|recursive|circular/ },
];

describe.each(DATABASES)("WF-1 workflow definitions (%s)", (kind) => {
  const perFile = serverPerFile(kind);

  it("WF-1 a bad YAML is 400 invalid_workflow naming the line, and nothing is stored", async () => {
    const srv = await perFile.start();
    for (const b of BAD) {
      const r = await srv.api("PUT", "/workflows/bad", b.yaml);
      expect(r.status, b.what).toBe(400);
      expect(r.body.error.code, b.what).toBe("invalid_workflow");
      expect(r.body.error.details.line, `${b.what}: ${r.body.error.message}`).toBe(b.line);
      expect(r.body.error.message, b.what).toMatch(b.message);
    }
    expect((await srv.api("GET", "/workflows/bad")).status).toBe(404);
  });

  it("WF-1 stored, versioned with compare-and-set, listed after the built-in default, deleted", async () => {
    const srv = await perFile.start();
    const list0 = (await srv.api("GET", "/workflows")).body as { name: string; builtIn: boolean; steps: { id: string }[] }[];
    expect(list0[0]).toMatchObject({ name: "default", builtIn: true, version: 1 });
    expect(list0[0]!.steps.map((s) => s.id)).toEqual(["todo", "in_progress", "review", "done", "failed"]);
    expect((await srv.api("PUT", "/workflows/default", REVIEWER)).body.error.code).toBe("workflow_builtin");
    expect((await srv.api("DELETE", "/workflows/default")).body.error.code).toBe("workflow_builtin");

    const v1 = await srv.api("PUT", "/workflows/reviewer?ifVersion=0", { source: REVIEWER });
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ name: "reviewer", version: 1, repositoryId: null, source: REVIEWER, stopped: false, builtIn: false });
    expect(v1.body.steps[0]).toMatchObject({
      id: "review",
      on: { completed: "in_progress" },
      onEnter: [{ action: "start_session", agent: "scripted", prompt: "review {{title}}" }],
    });
    // A second writer that read version 0 loses; one that read 1 wins.
    const stale = await srv.api("PUT", "/workflows/reviewer?ifVersion=0", REVIEWER);
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: "workflow_version_conflict", details: { version: 1 } });
    // JSON definition: stored as the equivalent YAML.
    const v2 = await srv.api("PUT", "/workflows/reviewer?ifVersion=1", { steps: [{ id: "review", wipLimit: 2 }] });
    expect(v2.status).toBe(200);
    expect(v2.body.version).toBe(2);
    expect(v2.body.source).toContain("wipLimit: 2");
    // Concurrent unconditional writes: each gets its own version, none is lost silently.
    const both = await Promise.all([srv.api("PUT", "/workflows/reviewer", REVIEWER), srv.api("PUT", "/workflows/reviewer", REVIEWER)]);
    const ok = both.filter((r) => r.status === 200).map((r) => r.body.version as number);
    for (const r of both) if (r.status !== 200) expect(r.body.error.code).toBe("workflow_version_conflict");
    expect(new Set(ok).size).toBe(ok.length);
    const names = ((await srv.api("GET", "/workflows")).body as { name: string }[]).map((w) => w.name);
    expect(names).toEqual(["default", "reviewer"]);

    // Per repository: an unknown repository is named with its line.
    const { repo, repository } = await repoAndTask(srv);
    perFile.track(repo);
    const scoped = await srv.api("PUT", "/workflows/scoped", `repositoryId: ${repository.id}\nsteps:\n  - id: review\n`);
    expect(scoped.body.repositoryId).toBe(repository.id);
    const missing = await srv.api("PUT", "/workflows/scoped2", "steps:\n  - id: review\nrepositoryId: repo_missing\n");
    expect(missing.body.error).toMatchObject({ code: "invalid_workflow", details: { line: 3, path: "repositoryId" } });

    expect((await srv.api("DELETE", "/workflows/scoped")).status).toBe(204);
    expect((await srv.api("DELETE", "/workflows/scoped")).status).toBe(404);
    expect((await srv.api("PUT", "/workflows/Bad Name", REVIEWER)).body.error.code).toBe("invalid_request");
  });
});
