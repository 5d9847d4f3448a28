import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { waitForSession } from "../fixture/server.js";
import { axeSerious, eventually, openPage, shot, uiSuite } from "./ui-harness.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, stdio: "ignore" });
const file = (page: Page, path: string) => page.locator(`.review-file[data-path="${path}"]`);

describe("review: all files of a task, diffs, markers, viewed ticks; axe on every page (Chromium)", () => {
  const ui = uiSuite();
  let taskId = "";
  beforeAll(async () => {
    const repo = await makeRepo({ name: "shop", files: { "src/app.ts": "export const answer = 42;\n", "docs/old-name.md": "# guide\n\nsome words\n" } });
    const r = await ui.srv.api("POST", "/repositories", { path: repo.path });
    const t = await ui.srv.api("POST", "/tasks", { title: "Review me", repositories: [{ repositoryId: r.body.id }] });
    taskId = t.body.id;
    const big = Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\\n");
    const s = await ui.srv.api("POST", `/tasks/${taskId}/sessions`, {
      prompt: [
        "write src/app.ts export const answer = 43;\\nexport function hello(name: string): string {\\n  return `hi ${name}`;\\n}",
        "commit change app",
        "write notes.md hello notes",
        `write big.txt ${big}`,
        "say **done**",
      ].join("\n"),
    });
    await waitForSession(ui.srv.api, s.body.id, ["waiting_for_input"]);
    // What a person does by hand in the worktree: a rename and a binary file.
    const env = (await ui.srv.api("GET", `/tasks/${taskId}/environment`)).body as { repositories: { worktreePath: string }[] };
    const wt = env.repositories[0]!.worktreePath;
    git(wt, "mv", "docs/old-name.md", "docs/new-name.md");
    writeFileSync(join(wt, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0, 0, 255]));
  });

  it("REV-UI-1 committed and uncommitted files apart; highlighting; unified/split; large file collapsed; binary and rename markers; viewed ticks persist", async () => {
    const { page, pageErrors } = await openPage(ui.browser, `${ui.srv.url}/tasks/${taskId}`);
    await page.getByRole("link", { name: "Review changes" }).click();
    await page.waitForURL(`**/tasks/${taskId}/review`);
    const tree = page.getByRole("navigation", { name: "Changed files" });
    await tree.getByText("src/app.ts").waitFor();
    const section = (title: string) => page.getByRole("region", { name: title });
    await section("Committed on the branch").locator(`.review-file[data-path="src/app.ts"]`).waitFor();
    for (const p of ["notes.md", "big.txt", "logo.png", "docs/new-name.md"])
      await section("Uncommitted changes").locator(`.review-file[data-path="${p}"]`).waitFor();
    expect(await tree.textContent()).toMatch(/src\/app\.ts\s*\+4\s*−1/);

    // Syntax highlighting of the TypeScript file, unified first.
    const app = file(page, "src/app.ts");
    await app.locator("table.diff-table.unified").waitFor();
    expect(await app.locator("td.code .hljs-keyword").count()).toBeGreaterThan(0);
    expect(await app.locator("tr.line.add td.code", { hasText: "export function hello" }).count()).toBe(1);
    await page.getByRole("button", { name: "Split" }).click();
    await app.locator("table.diff-table.split").waitFor();
    // Split: the removed line sits beside the line that replaced it.
    const pair = app.locator("tr.line.pair", { hasText: "answer = 42" });
    expect(await pair.locator("td.code.del").textContent()).toContain("answer = 42");
    expect(await pair.locator("td.code.add").textContent()).toContain("answer = 43");
    await shot(page, "ui-review-split");
    await page.getByRole("button", { name: "Unified" }).click();

    // A large file starts collapsed; one click shows it.
    const big = file(page, "big.txt");
    expect(await big.locator("table").count()).toBe(0);
    await big.getByRole("button", { name: "Show large diff (500 lines)" }).click();
    await big.locator("tr.line.add", { hasText: "line 499" }).waitFor();

    // Binary and rename markers.
    expect(await file(page, "logo.png").locator(".badge.binary").count()).toBe(1);
    expect(await file(page, "logo.png").textContent()).toContain("Binary file: no text diff.");
    const renamed = file(page, "docs/new-name.md");
    expect(await renamed.locator(".badge.renamed").count()).toBe(1);
    expect(await renamed.locator(".file-path").textContent()).toBe("docs/old-name.md → docs/new-name.md");

    // Viewed: the file folds, the tree ticks it, and the tick survives a reload.
    await app.getByLabel("Viewed").check();
    await app.locator("table").waitFor({ state: "detached" });
    await eventually(() => page.locator(".review-head .muted").textContent()).toMatch(/^1 of 5 files viewed$/);
    await page.reload();
    await eventually(() => file(page, "src/app.ts").getByLabel("Viewed").isChecked()).toBe(true);
    expect(await tree.locator("li.viewed").textContent()).toContain("src/app.ts");
    await shot(page, "ui-review");
    expect(pageErrors).toEqual([]);
  });

  it("A11Y-1 axe-core finds no serious or critical violation on the board, the task page and the review page", async () => {
    for (const [path, ready] of [
      ["/", ".task-card"],
      [`/tasks/${taskId}`, ".session-panel .msg"],
      [`/tasks/${taskId}/review`, ".review-file table"],
      ["/repositories", "table.repos"],
      ["/archived", ".board .column"],
    ] as const) {
      const { page, pageErrors } = await openPage(ui.browser, ui.srv.url + path);
      await page.locator(ready).first().waitFor();
      expect(await axeSerious(page), path).toEqual([]);
      expect(pageErrors, path).toEqual([]);
      await page.close();
    }
  });
});
