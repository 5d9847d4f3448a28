import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { axeSerious, eventually, openPage, shot, uiSuite } from "./ui-harness.js";

describe("repositories page: edit and remove (Chromium, the repositories API)", () => {
  const ui = uiSuite();

  it("WEB-32 Edit saves setup script, copy files and default branch through PATCH; a bad branch is refused in words and nothing changes; Remove asks, is refused while a task uses it, and removes one no task uses (the checkout stays)", async () => {
    const checkout = await makeRepo({ name: "settled" });
    const repo = (await ui.srv.api("POST", "/repositories", { path: checkout.path })).body as { id: string };
    expect((await ui.srv.api("POST", "/tasks", { title: "Uses settled", repositories: [{ repositoryId: repo.id }] })).status).toBe(201);
    const spareCheckout = await makeRepo({ name: "spare" });
    const spare = (await ui.srv.api("POST", "/repositories", { path: spareCheckout.path })).body as { id: string };
    const read = async () =>
      (await ui.srv.api("GET", `/repositories/${repo.id}`)).body as {
        defaultBranch: string;
        setupScript?: string | null;
        copyFiles?: string[];
        pullBeforeWorktree: boolean;
      };

    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/repositories`, { width: 1280, height: 800 });
    await page.getByRole("button", { name: "Edit settled" }).click();
    const form = page.getByRole("form", { name: "Edit settled" });
    await form.getByLabel("Setup script").fill("npm ci");
    await form.getByLabel("Copy files").fill(".env\n\n config/local.json \n");
    await form.getByRole("button", { name: "Save" }).click();
    await form.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const saved = await read();
    expect(saved.setupScript).toBe("npm ci");
    expect(saved.copyFiles).toEqual([".env", "config/local.json"]);
    expect(saved.defaultBranch).toBe("main");
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, "repository-settings", false);

    // A default branch the repository does not have: refused in words; nothing was changed.
    await form.getByLabel("Default branch", { exact: true }).fill("no-such-branch");
    await form.getByLabel("Setup script").fill("make setup");
    await form.getByRole("button", { name: "Save" }).click();
    await form.locator('[role=alert][data-error-code="base_branch_not_found"]', { hasText: "does not exist" }).waitFor();
    expect(await read()).toEqual(saved);

    // Clearing the setup script sends null: no script.
    await form.getByLabel("Default branch", { exact: true }).fill("main");
    await form.getByLabel("Setup script").fill("");
    await form.getByRole("button", { name: "Save" }).click();
    await eventually(async () => (await read()).setupScript ?? null).toBeNull();

    // Remove asks first; a task still uses it: refused in words, the row stays.
    const settings = page.getByRole("region", { name: "Settings of settled" });
    await settings.getByRole("button", { name: "Remove…" }).click();
    const ask = settings.getByRole("alertdialog", { name: "Remove settled" });
    expect(await ask.textContent()).toContain(`Your checkout at ${checkout.path} stays as it is`);
    await ask.getByRole("button", { name: "Remove repository" }).click();
    await ask.locator('[role=alert][data-error-code="repository_in_use"]', { hasText: "Tasks still refer to this repository" }).waitFor();
    expect((await ui.srv.api("GET", `/repositories/${repo.id}`)).status).toBe(200);

    // A repository no task uses: Remove removes it; the person's checkout is untouched.
    await ask.getByRole("button", { name: "Keep it" }).click();
    await page.getByRole("button", { name: "Edit spare" }).click();
    const spareSettings = page.getByRole("region", { name: "Settings of spare" });
    await spareSettings.getByRole("button", { name: "Remove…" }).click();
    await spareSettings.getByRole("alertdialog", { name: "Remove spare" }).getByRole("button", { name: "Remove repository" }).click();
    await page.locator(`table.repos tr[data-repository-id="${spare.id}"]`).waitFor({ state: "detached" });
    expect(await spareSettings.count()).toBe(0);
    expect((await ui.srv.api("GET", `/repositories/${spare.id}`)).status).toBe(404);
    expect(existsSync(spareCheckout.path)).toBe(true);
    expect((await ui.srv.api("GET", `/repositories/${repo.id}`)).status).toBe(200);
    // Only the two refusals this test provoked failed.
    const provoked = (e: string) => /http 400 PATCH .*\/repositories\/|http 409 DELETE .*\/repositories\/|status of 40[09]/.test(e);
    expect(pageErrors.filter((e) => !provoked(e))).toEqual([]);
  });
});
