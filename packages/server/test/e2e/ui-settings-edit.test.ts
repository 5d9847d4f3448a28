import { describe, expect, it } from "vitest";
import { axeSerious, eventually, openPage, shot, uiSuite } from "./ui-harness.js";

/**
 * WEB-44 on the page: the Settings page changes an agent profile's permission policy and the
 * editor command through the API; a refusal is said in words and changes nothing. On a phone,
 * both themes; axe finds nothing serious.
 */
describe("WEB-44 Settings edits agent choices and the editor (Chromium, phone)", () => {
  const ui = uiSuite();

  it("WEB-44 the scripted agent set to ask, an empty editor command refused, then one saved: all through the API", { timeout: 90_000 }, async () => {
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/settings`, { width: 390, height: 844 });
    const row = page.locator('.agent-profile[data-agent="scripted"]');
    const choices = row.getByRole("form", { name: "scripted choices" });
    await choices.getByLabel("Before it changes files or runs commands").selectOption("ask");
    await choices.getByRole("button", { name: "Save scripted" }).click();
    await choices.getByRole("status").filter({ hasText: "Saved" }).waitFor();
    await eventually(() => row.locator("dd[data-policy]").getAttribute("data-policy")).toBe("ask");
    const scripted = ((await ui.srv.api("GET", "/agents")).body as { name: string; permissionPolicy: string }[]).find((p) => p.name === "scripted");
    expect(scripted?.permissionPolicy).toBe("ask");

    const editor = page.getByRole("form", { name: "Editor command" });
    const input = editor.getByLabel("Command Open in editor runs with a worktree's path");
    await input.fill("   ");
    await editor.getByRole("button", { name: "Save editor" }).click();
    await editor.locator('[role="alert"][data-error-code="invalid_request"]').waitFor();
    expect((await ui.srv.api("GET", "/settings/editor")).body).toEqual({ command: null, source: "none" });
    await input.fill("true");
    await editor.getByRole("button", { name: "Save editor" }).click();
    await editor.getByText("Set here.").waitFor();
    expect((await ui.srv.api("GET", "/settings/editor")).body).toEqual({ command: "true", source: "person" });
    await eventually(() => editor.locator('[role="alert"]').count()).toBe(0);
    await editor.scrollIntoViewIfNeeded();
    await shot(page, "settings-edit-phone-light", false);
    expect(await axeSerious(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "dark" });
    await shot(page, "settings-edit-phone-dark", false);
    expect(await axeSerious(page)).toEqual([]);
    // The one refusal the test provoked (the empty command) is the only failed request.
    expect(pageErrors.filter((e) => !(e.includes("400") && e.includes("/settings/editor")))).toEqual([]);
  });
});
