import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { startTestServer, waitFor, waitForSession } from "../fixture/server.js";
import { applyWorkflow, runsOf } from "../workflows/helpers.js";
import { axeSerious, eventually, openPage, uiSuite } from "./ui-harness.js";

const WORKFLOW = (repositoryId: string) => `# Our board
repositoryId: ${repositoryId}
steps:
  - id: in_progress
    wipLimit: 3
    onEnter:
      - action: start_session
        agent: scripted
        prompt: "say first"
  - id: review
`;

/**
 * WF-1 in Chromium: the Workflows page edits the columns of a stored workflow (a WIP limit and
 * an action's prompt), saves with the version it read, and the board then works by the new
 * version; a refused save names the field and the line, in the form and in the YAML.
 */
describe.each(ONE_DATABASE)("WF-1.3 editing a workflow in the page (Chromium, %s)", (kind) => {
  const ui = uiSuite(() => startTestServer(kind));

  it("WF-1.3 the columns form edits a WIP limit and an action, the save is applied; a bad value → the field and its line; a bad YAML → its line", {
    timeout: 180_000,
  }, async () => {
    const srv = ui.srv;
    const repo = await makeRepo({ name: "wf-page" });
    try {
      const repositoryId = (await srv.api("POST", "/repositories", { path: repo.path })).body.id as string;
      await applyWorkflow(srv, "team", WORKFLOW(repositoryId));
      const task = async (title: string) => (await srv.api("POST", "/tasks", { title, repositories: [{ repositoryId }] })).body.id as string;
      const a = await task("A");
      const b = await task("B");

      const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/settings`);
      await page.locator("#view").getByRole("link", { name: "Workflows" }).click();
      await page.waitForURL("**/workflows");
      await page.getByRole("heading", { name: "Workflows", level: 1 }).waitFor();
      await page.locator('button[data-workflow="team"]').click();
      const inProgress = page.locator('fieldset[data-step="in_progress"]');
      await inProgress.getByLabel("WIP limit").fill("1");
      await inProgress.getByLabel("prompt").fill("say edited");
      await page.getByRole("button", { name: "Save" }).click();
      await eventually(() => page.getByRole("status").filter({ hasText: "Saved" }).textContent()).toBe("Saved version 2.");

      const stored = (await srv.api("GET", "/workflows/team")).body;
      expect(stored.version).toBe(2);
      expect(stored.steps[0]).toMatchObject({ id: "in_progress", wipLimit: 1, onEnter: [{ action: "start_session", prompt: "say edited" }] });
      // The rest of the YAML (its comment, the other column) is as it was.
      expect(stored.source).toBe(WORKFLOW(repositoryId).replace("wipLimit: 3", "wipLimit: 1").replace("say first", "say edited"));

      // Applied: the edited action starts the agent with the new prompt, and the limit holds.
      expect((await srv.api("PATCH", `/tasks/${a}`, { state: "in_progress" })).status).toBe(200);
      const run = await waitFor(async () => (await runsOf(srv, a)).find((r) => r.action === "start_session" && r.sessionId), "the edited action ran");
      await waitForSession(srv.api, run.sessionId!, ["waiting_for_input"]);
      const said = (await srv.api("GET", `/sessions/${run.sessionId}/messages`)).body as { role: string; text: string }[];
      expect(said.find((m) => m.role === "user")!.text).toBe("say edited");
      const full = await srv.api("PATCH", `/tasks/${b}`, { state: "in_progress" });
      expect(full.status).toBe(409);
      expect(full.body.error.code).toBe("wip_limit_reached");

      // A WIP limit of 0 is refused at its field, with the YAML line; nothing is stored.
      await inProgress.getByLabel("WIP limit").fill("0");
      await page.getByRole("button", { name: "Save" }).click();
      const fieldAlert = inProgress.locator('[id="error-steps.0.wipLimit"]');
      await fieldAlert.waitFor();
      expect(await fieldAlert.getAttribute("data-error-line")).toBe("5");
      expect(await inProgress.getByLabel("WIP limit").getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator("#workflow-error").getAttribute("data-error-path")).toBe("steps.0.wipLimit");
      expect((await srv.api("GET", "/workflows/team")).body.version).toBe(2);

      // The YAML editor shows the same text; an unknown action is refused at its line.
      await page.getByRole("tab", { name: "YAML" }).click();
      const yaml = page.getByLabel("Workflow YAML");
      expect(await yaml.inputValue()).toContain("wipLimit: 0");
      await yaml.fill((await yaml.inputValue()).replace("wipLimit: 0", "wipLimit: 2").replace("action: start_session", "action: launch_rocket"));
      await page.getByRole("button", { name: "Save" }).click();
      await eventually(() => page.locator("#workflow-error").getAttribute("data-error-line")).toBe("7");
      expect(await page.locator("#workflow-error").textContent()).toMatch(/unknown action "launch_rocket"/);
      expect(await yaml.getAttribute("aria-invalid")).toBe("true");
      expect((await srv.api("GET", "/workflows/team")).body.version).toBe(2);
      expect(await axeSerious(page)).toEqual([]);
      // The two refused saves are the only failed requests.
      expect(pageErrors.filter((e) => !/^http 400 PUT .*\/api\/v1\/workflows\/team\?ifVersion=2$/.test(e) && !/status of 400/.test(e))).toEqual([]);
      expect(pageErrors.filter((e) => e.startsWith("http 400 PUT"))).toHaveLength(2);
      await page.close();
    } finally {
      await repo.cleanup();
    }
  });
});
