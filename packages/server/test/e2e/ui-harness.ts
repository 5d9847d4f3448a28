import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { freshDatabase } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { startTestServer, type TestServer } from "../fixture/server.js";

/** Shared set-up of the UI tests (UX-2): Debian's Chromium driven by playwright-core. */
export const SHOTS = resolve(import.meta.dirname, "../../../../.grove-test/screenshots");
/** The full browser (Debian's `chromium`): for what only it has, web notifications (ATT-1). */
export const CHROMIUM = process.env.GROVE_CHROMIUM ?? "/usr/bin/chromium";
/**
 * The page tests' browser: Chromium's headless shell (Debian's `chromium-headless-shell`), the
 * same Blink and V8 without the browser's own windows and services, at a third of the full
 * browser's CPU per page on a 2-core machine (docs/decisions/2026-12-04-page-tests-headless-shell.md).
 * Where it is not installed the full browser runs instead: the same tests, only slower.
 */
export const CHROMIUM_SHELL = process.env.GROVE_CHROMIUM_SHELL ?? "/usr/lib/chromium/chromium-headless-shell";

/** The executable `launchBrowser` runs: the headless shell unless `full` (or the shell is missing). */
export function browserExecutable(full = false): string {
  if (!full && existsSync(CHROMIUM_SHELL)) return CHROMIUM_SHELL;
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: .ci/run installs Debian's chromium and chromium-headless-shell (apt-get install chromium chromium-headless-shell)`,
    );
  return CHROMIUM;
}

/**
 * Chromium, headless (the shell unless `full`: the full browser, for web notifications); `proxy`
 * sends every request through that proxy (WEB-50's tunnel). Without `env`, `proxy` or `full`
 * the caller gets a lease on the one shell this test worker keeps running (`sharedShell`): its
 * `close()` closes the contexts and pages it opened, not the browser.
 */
export async function launchBrowser(env?: Record<string, string | undefined>, opts: { proxy?: string; full?: boolean } = {}): Promise<Browser> {
  if (env === undefined && opts.proxy === undefined && !opts.full) return lease(await sharedShell());
  return launch(env, opts);
}

function launch(env: Record<string, string | undefined> | undefined, opts: { proxy?: string; full?: boolean }): Promise<Browser> {
  return chromium.launch({
    executablePath: browserExecutable(opts.full),
    ...(env ? { env } : {}),
    ...(opts.proxy ? { proxy: { server: opts.proxy } } : {}),
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
    ],
  });
}

/**
 * One browser per test worker (vitest runs a worker's files one after another in one process,
 * vitest.config.ts `isolate: false`): a launch costs about a second of CPU, and every page lives
 * in its own context anyway (`newPage` opens one), so files share nothing but the process.
 * Playwright ends the browser when the worker exits; one that crashed is launched again.
 */
let shell: Promise<Browser> | undefined;
async function sharedShell(): Promise<Browser> {
  const running = shell && (await shell.catch(() => undefined));
  if (running?.isConnected()) return running;
  shell = launch(undefined, {});
  return shell;
}

/**
 * A page test's context is a browser without service workers (as a Firefox private window is),
 * unless the test asks for one: the worker's install precaches the shell and every view, a cost
 * a person's browser pays once and every fresh test context would pay again (about 100 ms of
 * machine CPU per page open). The worker's own tests (WEB-27, WEB-18's restart) allow it.
 */
const withoutWorkers = <O extends BrowserContextOptions>(o?: O): O => ({ serviceWorkers: "block", ...o }) as O;

/** The shared browser as one caller sees it: the contexts it opened, closed by its `close()`. */
function lease(browser: Browser): Browser {
  const mine = new Set<BrowserContext>();
  const track = (c: BrowserContext) => {
    mine.add(c);
    c.on("close", () => mine.delete(c));
    return c;
  };
  return new Proxy(browser, {
    get(target, prop) {
      if (prop === "newContext") return async (o?: BrowserContextOptions) => track(await target.newContext(withoutWorkers(o)));
      if (prop === "newPage")
        return async (o?: BrowserContextOptions) => {
          const page = await target.newPage(withoutWorkers(o));
          track(page.context());
          return page;
        };
      if (prop === "contexts") return () => target.contexts().filter((c) => mine.has(c));
      if (prop === "close") return async () => void (await Promise.all([...mine].map((c) => c.close().catch(() => undefined))));
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

/** The browser and the server one describe block shares (see uiSuite). */
export interface UiSuite {
  readonly browser: Browser;
  readonly srv: TestServer;
}

/**
 * The set-up every UI test file shares: one Chromium and one server (SQLite by default) for
 * the describe block it is called in, both closed after it. Read `ui.browser`/`ui.srv` inside
 * tests (they exist once beforeAll ran). `full`: the full browser instead of the headless shell.
 */
export function uiSuite(start: () => Promise<TestServer> = () => startTestServer("sqlite"), opts: { full?: boolean } = {}): UiSuite {
  let browser: Browser | undefined;
  let srv: TestServer | undefined;
  beforeAll(async () => {
    browser = await launchBrowser(undefined, opts);
    srv = await start();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });
  return {
    get browser() {
      if (!browser) throw new Error("uiSuite: the browser is not up (read it inside a test)");
      return browser;
    },
    get srv() {
      if (!srv) throw new Error("uiSuite: the server is not up (read it inside a test)");
      return srv;
    },
  };
}

/** A server whose home's agents.json configures `agents` (each a profile: name, command, args, …). */
export async function serverWithAgents(agents: (home: string) => Record<string, unknown>[], extraEnv: Record<string, string> = {}): Promise<TestServer> {
  const db = await freshDatabase("sqlite");
  mkdirSync(db.home, { recursive: true });
  writeFileSync(join(db.home, "agents.json"), JSON.stringify({ agents: agents(db.home) }));
  return startTestServer("sqlite", db, extraEnv);
}

/**
 * A server whose home also configures `careful`: the scripted agent with permission policy
 * "ask", so permission requests reach the page (SES-5).
 */
export async function serverWithCarefulAgent(extraEnv: Record<string, string> = {}): Promise<TestServer> {
  const { command, args } = scriptedAgentCommand();
  return serverWithAgents(
    (home) => [{ name: "careful", command, args, env: { GROVE_SCRIPTED_STATE_DIR: join(home, "agents", "careful") }, permissionPolicy: "ask" }],
    extraEnv,
  );
}

/** `planner`: test/fixture/planning-agent.mjs, an ACP agent that reports modes, slash commands and plans (AG-2). */
export const PLANNING_AGENT = { name: "planner", command: process.execPath, args: [resolve(import.meta.dirname, "../fixture/planning-agent.mjs")] };

/**
 * A page that records uncaught script errors and console errors (a failed request, e.g. a 404,
 * is a console error in Chromium), so a test can assert the UI never threw nor asked for
 * something that does not exist.
 */
export async function openPage(
  browser: Browser,
  url: string,
  size = { width: 1400, height: 900 },
  colorScheme: "light" | "dark" = "light",
  serviceWorkers: "allow" | "block" = "block",
): Promise<{ page: Page; pageErrors: string[] }> {
  const page = await browser.newPage({ viewport: size, colorScheme, serviceWorkers });
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(`console: ${m.text()} @ ${m.location().url}`);
  });
  page.on("response", (r) => {
    if (r.status() >= 400) pageErrors.push(`http ${r.status()} ${r.request().method()} ${r.url()}`);
  });
  page.setDefaultTimeout(20_000);
  await page.goto(url);
  return { page, pageErrors };
}

/** The addresses the page has loaded so far (its resource-timing entries): scripts, API reads. */
export function loadedResources(page: Page): Promise<string[]> {
  return page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
}

const AXE = resolve(import.meta.dirname, "../../../../node_modules/axe-core/axe.min.js");

/** axe-core injected into the page: the serious and critical violations (rule id and targets). */
export async function axeSerious(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const r = await axe.run((globalThis as any).document, { resultTypes: ["violations"] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n: any) => n.target.join(" ")).slice(0, 3) }));
  });
  return (found as { id: string; impact: string; nodes: string[] }[])
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.join(", ")}`);
}

export async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: resolve(SHOTS, `${name}.png`), fullPage });
}

let repoCount = 0;

/** Like repoAndTask, but each repository gets its own name, so one server can hold many. */
export async function uniqueRepoAndTask(srv: TestServer, title: string): Promise<{ repositoryId: string; task: { id: string; title: string } }> {
  const repo = await makeRepo({ name: `repo${++repoCount}` });
  const r = await srv.api("POST", "/repositories", { path: repo.path });
  if (r.status !== 201) throw new Error(`repository: ${r.status} ${JSON.stringify(r.body)}`);
  const t = await srv.api("POST", "/tasks", { title, repositories: [{ repositoryId: r.body.id }] });
  if (t.status !== 201) throw new Error(`task: ${t.status} ${JSON.stringify(t.body)}`);
  return { repositoryId: r.body.id, task: t.body };
}

/** expect.poll with a timeout that suits agent processes on a busy 2-core machine (the default is 1 s). */
export function eventually<T>(fn: () => T | Promise<T>, timeout = 20_000) {
  return expect.poll(fn, { timeout, interval: 100 });
}
