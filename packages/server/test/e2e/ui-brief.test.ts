import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { waitForSession } from "../fixture/server.js";
import { eventually, openPage, uiSuite } from "./ui-harness.js";

describe("BRIEF-1 web UI: the new-session form is pre-filled with the task's brief (Chromium)", () => {
  const ui = uiSuite();

  it("BRIEF-1: the brief is pre-filled and editable; what the person sends is the first prompt; cleared, the session starts idle", async () => {
    const repo = await makeRepo({ name: "briefed" });
    const r = await ui.srv.api("POST", "/repositories", { path: repo.path });
    const t = await ui.srv.api("POST", "/tasks", {
      title: "Write the notes",
      description: "write notes.txt from the brief",
      repositories: [{ repositoryId: r.body.id }],
    });
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${t.body.id}`);
    const box = page.getByLabel("First prompt (the task's brief; edit or clear it)");
    await eventually(() => box.inputValue()).toBe("Write the notes\n\nwrite notes.txt from the brief");
    await box.fill("Write the notes\n\nwrite notes.txt from the brief\nwrite extra.txt edited");
    await page.getByRole("button", { name: "Start session" }).click();
    await eventually(async () => ((await ui.srv.api("GET", `/tasks/${t.body.id}/sessions`)).body as unknown[]).length).toBe(1);
    const [first] = (await ui.srv.api("GET", `/tasks/${t.body.id}/sessions`)).body as { id: string }[];
    await waitForSession(ui.srv.api, first!.id, ["waiting_for_input"]);
    const msgs = (await ui.srv.api("GET", `/sessions/${first!.id}/messages`)).body as { role: string; text: string }[];
    expect(msgs.filter((m) => m.role === "user").map((m) => m.text)).toEqual(["Write the notes\n\nwrite notes.txt from the brief\nwrite extra.txt edited"]);
    const ws = (await ui.srv.api("GET", `/sessions/${first!.id}/workspace`)).body;
    expect(readFileSync(join(ws.workspacePath, "notes.txt"), "utf8")).toBe("from the brief");
    expect(readFileSync(join(ws.workspacePath, "extra.txt"), "utf8")).toBe("edited");

    // After a start the form is empty: sent as it is, the next session starts idle, not with the brief again.
    await eventually(() => box.inputValue()).toBe("");
    await page.getByRole("button", { name: "Start session" }).click();
    await eventually(async () => ((await ui.srv.api("GET", `/tasks/${t.body.id}/sessions`)).body as unknown[]).length).toBe(2);
    const second = ((await ui.srv.api("GET", `/tasks/${t.body.id}/sessions`)).body as { id: string; createdAt: string }[]).find((s) => s.id !== first!.id)!;
    await waitForSession(ui.srv.api, second.id, ["waiting_for_input"]);
    const idle = (await ui.srv.api("GET", `/sessions/${second.id}/messages`)).body as { role: string }[];
    expect(idle.filter((m) => m.role === "user")).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
