/**
 * Placeholder page: shows the server's version and the tasks with their state. The real UI
 * (UX-2) replaces this; it talks to the same `/api/v1` and imports only @grove/protocol types.
 */
import type { ErrorBody, Health, Task } from "@grove/protocol";

// With GROVE_AUTH_TOKEN set, open the page once as `/?token=…`; the token is kept locally.
const TOKEN_KEY = "grove.token";
const fromUrl = new URLSearchParams(location.search).get("token");
if (fromUrl) localStorage.setItem(TOKEN_KEY, fromUrl);
const token = localStorage.getItem(TOKEN_KEY);

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`/api/v1${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    const err = (body as ErrorBody | null)?.error;
    throw new Error(err ? `${err.code}: ${err.message}` : `HTTP ${res.status}`);
  }
  return body as T;
}

function cell(row: HTMLTableRowElement, text: string, tag: "td" | "th" = "td"): void {
  const el = document.createElement(tag);
  el.textContent = text;
  row.append(el);
}

function renderTasks(container: HTMLElement, tasks: readonly Task[]): void {
  container.replaceChildren();
  if (tasks.length === 0) {
    const p = document.createElement("p");
    p.textContent = "No tasks yet. Create one with `grove task create`.";
    container.append(p);
    return;
  }
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const title of ["Task", "State", "Id"]) cell(head, title, "th");
  const body = table.createTBody();
  for (const t of tasks) {
    const row = body.insertRow();
    row.dataset.taskId = t.id;
    cell(row, t.title);
    cell(row, t.state);
    cell(row, t.id);
  }
  container.append(table);
}

async function main(): Promise<void> {
  const status = document.getElementById("status")!;
  const tasks = document.getElementById("tasks")!;
  try {
    const health = await api<Health>("/health");
    status.textContent = `server ${health.version} · ${health.database} · runner ${health.runnerId}`;
  } catch (e) {
    status.textContent = `server unavailable: ${(e as Error).message}`;
    status.className = "error";
    return;
  }
  try {
    renderTasks(tasks, await api<Task[]>("/tasks"));
  } catch (e) {
    tasks.textContent = `could not load tasks: ${(e as Error).message}`;
    tasks.className = "error";
  }
}

void main();
