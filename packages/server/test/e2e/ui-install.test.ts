import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { startTestServer } from "../fixture/server.js";
import { eventually, launchBrowser, openPage, shot } from "./ui-harness.js";

/** Waits until the service worker is active and controls the page. */
const controlled = (page: Page) =>
  page.waitForFunction(async () => {
    await navigator.serviceWorker.ready;
    return navigator.serviceWorker.controller !== null;
  });

/** Width and height from a PNG's IHDR chunk. */
const pngSize = (b: Buffer) => ({ width: b.readUInt32BE(16), height: b.readUInt32BE(20) });

describe("WEB-27 an installable web app with an offline page (Chromium)", () => {
  it("WEB-27 manifest, icons and service worker meet Chromium's installability checks; with the server down a reload shows the offline page, and Try again comes back", async () => {
    const browser = await launchBrowser();
    let srv = await startTestServer("sqlite");
    try {
      const manifest = await fetch(srv.url + "/manifest.webmanifest");
      expect(manifest.status).toBe(200);
      const m = (await manifest.json()) as {
        name: string;
        start_url: string;
        display: string;
        theme_color: string;
        icons: { src: string; sizes: string; type: string }[];
      };
      expect(m).toMatchObject({ name: "Grove", start_url: "/", display: "standalone" });
      expect(m.theme_color).toMatch(/^#[0-9a-f]{6}$/i);
      for (const size of [192, 512]) {
        const icon = m.icons.find((i) => i.sizes === `${size}x${size}`)!;
        expect(icon.type).toBe("image/png");
        const res = await fetch(srv.url + icon.src);
        expect(res.headers.get("content-type")).toBe("image/png");
        expect(pngSize(Buffer.from(await res.arrayBuffer()))).toEqual({ width: size, height: size });
      }
      const sw = await fetch(srv.url + "/sw.js");
      expect(sw.headers.get("content-type")).toMatch(/javascript/);

      const { page, pageErrors } = await openPage(browser, srv.url + "/", { width: 390, height: 844 }, "light", "allow");
      await page.locator(".board .column").first().waitFor();
      await controlled(page);
      // Chromium's own verdict: the same checks its install prompt makes. Playwright's browser
      // contexts are incognito, which Chromium never installs from; every other check must pass.
      const cdp = await page.context().newCDPSession(page);
      const installErrors = async () =>
        ((await cdp.send("Page.getInstallabilityErrors")) as { installabilityErrors: { errorId: string }[] }).installabilityErrors
          .map((e) => e.errorId)
          .filter((id) => id !== "in-incognito");
      await eventually(installErrors).toEqual([]);
      const appManifest = (await cdp.send("Page.getAppManifest")) as { url: string; errors: unknown[] };
      expect(appManifest.url).toBe(srv.url + "/manifest.webmanifest");
      expect(appManifest.errors).toEqual([]);
      expect(pageErrors).toEqual([]);

      // The server stops: a reload is answered by the service worker's offline page, not the browser's error.
      await srv.stop();
      await page.reload();
      await page.locator("#offline h1", { hasText: "Grove's server is unreachable" }).waitFor();
      expect(await page.title()).toBe("Grove · server unreachable");
      await shot(page, "ui-offline-390", false);

      // Back on the same port: Try again opens the board.
      srv = await startTestServer("sqlite", { home: srv.home, databaseUrl: srv.databaseUrl }, { GROVE_PORT: new URL(srv.url).port });
      await page.getByRole("link", { name: "Try again" }).click();
      await page.locator(".board .column").first().waitFor();
      await eventually(() => page.locator("#live").textContent()).toBe("live");
      // The API is never answered from the cache: the board's reads are the restarted server's.
      expect(await page.evaluate(async () => (await fetch("/api/v1/health")).headers.get("content-type"))).toMatch(/json/);
    } finally {
      await browser.close();
      await srv.close();
    }
  });
});
