import { mkdirSync, writeFileSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { apiClient, openEvents, serverPerTest, waitFor, waitForSession } from "../fixture/server.js";

type Item = { id: string; kind: string; taskId: string; title: string; state: string };

// USE-2: at 80 % of a budget one inbox item; at 100 % the running turn is cancelled at once and
// new prompts are refused (`409 budget_exceeded`) until a person raises the budget or lets one
// more turn run. Only the person sets budgets.
describe.each(DATABASES)("USE-2 budgets (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("USE-2 a task budget: one item at 80 %, the turn cancelled at 100 %, prompts refused, continue once runs exactly one turn, raising it lets work go on", async () => {
    const srv = await perTest.start();
    const events = await openEvents(srv.url);
    try {
      const { task } = await repoAndTask(srv, { title: "Capped" });
      // Not the person (no token): refused, nothing written.
      const stranger = apiClient(srv.url, "");
      const denied = await stranger("PUT", `/tasks/${task.id}/budget`, { cost: 100 });
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe("person_required");
      const set = await srv.api("PUT", `/tasks/${task.id}/budget`, { cost: 1 });
      expect(set.status).toBe(200);
      expect(set.body.budget).toEqual({ cost: 1 });
      expect((await srv.api("GET", `/tasks/${task.id}`)).body.budget).toEqual({ cost: 1 });

      const budgetItems = async () => ((await srv.api("GET", "/inbox")).body as Item[]).filter((i) => i.kind === "budget");
      const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 10 1 0.85" });
      await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
      const [at80] = await waitFor(async () => ((await budgetItems()).length > 0 ? budgetItems() : undefined), "the 80 % item");
      expect(at80).toMatchObject({ taskId: task.id, state: "open", title: "Capped: 80 % of the budget used" });
      // Still past 80 %, below 100 %: no second item.
      expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "usage 10 1 0.9" })).status).toBe(202);
      await waitFor(
        async () =>
          (await srv.api("GET", `/sessions/${s.body.id}`)).body.usage?.cost === 0.9 &&
          (await srv.api("GET", `/sessions/${s.body.id}`)).body.state === "waiting_for_input"
            ? true
            : undefined,
        "the second turn",
      );
      expect(await budgetItems()).toHaveLength(1);

      // 100 %: the turn is cancelled at once (the sleep would take a minute).
      expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "usage 10 1 1.2\nsleep 60000\nsay never" })).status).toBe(202);
      await waitFor(
        () => events.frames.some((f) => f.type === "usage.updated" && f.data.sessionId === s.body.id && f.data.usage.cost === 1.2),
        "the usage that spends the budget",
      );
      await waitFor(
        () =>
          events.frames.some(
            (f) =>
              f.type === "session.state_changed" &&
              f.data.session.id === s.body.id &&
              f.data.session.state === "waiting_for_input" &&
              f.data.session.lastTurn?.outcome === "cancelled",
          ),
        "the turn cancelled within 2 s",
        2000,
      );
      expect(
        ((await srv.api("GET", `/sessions/${s.body.id}/messages`)).body as { role: string; text: string }[]).some(
          (m) => m.role === "agent" && m.text === "never",
        ),
      ).toBe(false);
      expect((await budgetItems()).map((i) => i.title)).toContain("Capped: the budget is spent; new prompts wait for you");

      // Refused: a prompt, a new session with a prompt (nothing created).
      const refused = await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say more" });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe("budget_exceeded");
      expect(refused.body.error.details).toMatchObject({ taskId: task.id, scope: "task", limit: { cost: 1 }, used: { cost: 1.2 } });
      const before = (await srv.api("GET", `/tasks/${task.id}/sessions`)).body.length;
      expect((await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hi" })).body.error.code).toBe("budget_exceeded");
      expect((await srv.api("GET", `/tasks/${task.id}/sessions`)).body.length).toBe(before);

      // Continue once: exactly one more turn, which runs to its end although it is over budget.
      expect((await srv.api("PUT", `/tasks/${task.id}/budget`, { continueOnce: true })).status).toBe(200);
      expect(await budgetItems()).toEqual([]);
      expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "usage 10 1 1.3\nsay once more" })).status).toBe(202);
      await waitFor(
        async () =>
          ((await srv.api("GET", `/sessions/${s.body.id}/messages`)).body as { text: string }[]).some((m) => m.text === "once more") ? true : undefined,
        "the granted turn's words",
      );
      const granted = await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
      expect(granted.lastTurn.outcome).toBe("completed");
      expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say again" })).body.error.code).toBe("budget_exceeded");

      // Raising the budget lets work go on.
      expect((await srv.api("PUT", `/tasks/${task.id}/budget`, { cost: 10 })).body.budget).toEqual({ cost: 10 });
      expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say on" })).status).toBe(202);
      await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);

      // Bad input: a clear error, nothing changed.
      for (const body of [{ cost: -1 }, { tokens: 1.5 }, { cost: 1, continueOnce: true }, { budget: 3 }]) {
        const r = await srv.api("PUT", `/tasks/${task.id}/budget`, body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.error.code).toBe("invalid_request");
      }
      expect((await srv.api("GET", `/tasks/${task.id}`)).body.budget).toEqual({ cost: 10 });
      expect((await srv.api("PUT", "/tasks/tsk_missing/budget", { cost: 1 })).status).toBe(404);
    } finally {
      events.close();
    }
  });

  it("USE-2 a continue-once grant whose turn never started (its agent could not come up) is given back, not spent", async () => {
    const srv = await perTest.start();
    const { task } = await repoAndTask(srv, { title: "Kept grant" });
    await srv.api("PUT", `/tasks/${task.id}/budget`, { cost: 1 });
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 10 1 1.2" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say more" })).body.error.code).toBe("budget_exceeded");
    expect((await srv.api("PUT", `/tasks/${task.id}/budget`, { continueOnce: true })).status).toBe(200);

    // The next prompt takes the grant, then its agent cannot start: the worktree was replaced by
    // a plain directory, which a prompt refuses to touch (WT-5), so the session fails.
    const slot = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body.repositories[0];
    await srv.server.deps.agents.stop(s.body.id);
    await rm(slot.worktreePath, { recursive: true, force: true });
    mkdirSync(slot.worktreePath);
    writeFileSync(join(slot.worktreePath, "mine.txt"), "not a worktree");
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say lost" })).status).toBe(202);
    expect((await waitForSession(srv.api, s.body.id, ["failed"])).lastError).not.toBeNull();

    // The grant is still there: once the way is clear, exactly one turn runs past the budget.
    await rm(slot.worktreePath, { recursive: true, force: true });
    expect((await srv.api("POST", `/sessions/${s.body.id}/resume`)).status).toBe(202);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say granted" })).status).toBe(202);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say again" })).body.error.code).toBe("budget_exceeded");

    // The same for a new session with a prompt that is refused before it exists (SES-3: the
    // worktree it would attach to is a plain directory): no session, the grant kept.
    expect((await srv.api("PUT", `/tasks/${task.id}/budget`, { continueOnce: true })).status).toBe(200);
    await srv.server.deps.agents.stop(s.body.id);
    await rm(slot.worktreePath, { recursive: true, force: true });
    mkdirSync(slot.worktreePath);
    writeFileSync(join(slot.worktreePath, "mine.txt"), "not a worktree");
    const refused = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say lost" });
    expect(refused.body.error?.code).toBe("workspace_reuse_unsafe");
    expect((await srv.api("GET", `/tasks/${task.id}/sessions`)).body).toHaveLength(1);
    await rm(slot.worktreePath, { recursive: true, force: true });
    const second = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say granted" });
    expect(second.status).toBe(201);
    await waitForSession(srv.api, second.body.id, ["waiting_for_input"]);
    expect((await srv.api("POST", `/sessions/${second.body.id}/prompt`, { prompt: "say again" })).body.error.code).toBe("budget_exceeded");
  });

  it("USE-2 a continue-once grant is given back when the new session's worktree could not be made", async () => {
    const srv = await perTest.start({ GROVE_DAILY_BUDGET: "1usd" });
    const { repo, repository, task: spender } = await repoAndTask(srv, { title: "Spends the day" });
    const s = await srv.api("POST", `/tasks/${spender.id}/sessions`, { prompt: "usage 1 1 1" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const other = (await srv.api("POST", "/tasks", { title: "Other", repositories: [{ repositoryId: repository.id }] })).body;
    expect((await srv.api("POST", `/tasks/${other.id}/sessions`, { prompt: "say hi" })).body.error.code).toBe("budget_exceeded");
    expect((await srv.api("PUT", `/tasks/${other.id}/budget`, { continueOnce: true })).status).toBe(200);

    // The grant is taken, then the task's first worktree cannot be made (its repository moved away).
    await rename(repo.path, `${repo.path}.away`);
    const lost = await srv.api("POST", `/tasks/${other.id}/sessions`, { prompt: "say lost" });
    expect(lost.status).toBe(201);
    expect((await waitForSession(srv.api, lost.body.id, ["failed"])).lastError).not.toBeNull();
    await rename(`${repo.path}.away`, repo.path);

    // Given back: exactly one more turn runs past the daily cap.
    const granted = await srv.api("POST", `/tasks/${other.id}/sessions`, { prompt: "say granted" });
    expect(granted.status).toBe(201);
    await waitForSession(srv.api, granted.body.id, ["waiting_for_input"]);
    expect((await srv.api("POST", `/sessions/${granted.body.id}/prompt`, { prompt: "say again" })).body.error.code).toBe("budget_exceeded");
  });

  it("USE-2 a token budget counts tokens in + out at the turn's end", async () => {
    const srv = await perTest.start();
    const { task } = await repoAndTask(srv, { title: "Tokens" });
    await srv.api("PUT", `/tasks/${task.id}/budget`, { tokens: 1000 });
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 600 400" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const r = await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say more" });
    expect(r.status).toBe(409);
    expect(r.body.error.details).toMatchObject({ scope: "task", limit: { tokens: 1000 }, used: { tokens: 1000 } });
  });

  it("USE-2 the global daily cap (GROVE_DAILY_BUDGET) refuses the next prompt of any task", async () => {
    const srv = await perTest.start({ GROVE_DAILY_BUDGET: "1usd" });
    const { task, repository } = await repoAndTask(srv, { title: "Daily" });
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "usage 1 1 1" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const other = (await srv.api("POST", "/tasks", { title: "Other", repositories: [{ repositoryId: repository.id }] })).body;
    const r = await srv.api("POST", `/tasks/${other.id}/sessions`, { prompt: "say hi" });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: "budget_exceeded", details: { scope: "daily", limit: { cost: 1 } } });
  });
});
