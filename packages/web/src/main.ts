/**
 * The Grove web UI (UX-2): a header with the server status and the live-connection state,
 * and the routed views. Talks only to `/api/v1` and imports only @grove/protocol types.
 */
import type { Health } from "@grove/protocol";
import { adoptTokenFromUrl, api, describeError } from "./api.js";
import { h, render } from "./dom.js";
import { EventStream } from "./events.js";
import { Router } from "./router.js";
import { boardView } from "./views/board.js";
import { repositoriesView } from "./views/repositories.js";
import { taskView } from "./views/task.js";

adoptTokenFromUrl();

const status = document.getElementById("status")!;
const live = document.getElementById("live")!;
const root = document.getElementById("view")!;

const events = new EventStream();
const setLive = (text: string, cls: string) => {
  live.textContent = text;
  live.className = `live ${cls}`;
};
events.on("connected", () => setLive("live", "on"));
events.on("reconnected", () => setLive("live", "on"));
events.on("disconnected", () => setLive("reconnecting…", "off"));

const router = new Router(root, events, (el) => {
  render(el, h("h1", null, "Not found"), h("p", null, "No page at ", h("code", null, location.pathname), ". ", h("a", { href: "/" }, "Go to the board")));
  return () => undefined;
});
router.add("/", boardView).add("/repositories", repositoriesView).add("/tasks/:id", taskView);

async function showHealth(): Promise<void> {
  try {
    const health = await api.get<Health>("/health");
    status.textContent = `server ${health.version} · ${health.database} · runner ${health.runnerId}`;
    status.className = "";
  } catch (e) {
    status.textContent = `server unavailable: ${describeError(e)}`;
    status.className = "error";
  }
}

events.on("reconnected", () => void showHealth());
void showHealth();
events.connect();
router.resolve();
