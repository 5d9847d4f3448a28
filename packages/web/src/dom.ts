/**
 * A tiny render helper: `h("button", { onclick }, "Save")` builds an element. Attributes
 * starting with `on` become listeners, `dataset` fills data-* attributes, `false`/`null`/
 * `undefined` attributes and children are skipped. No virtual DOM: views rebuild the small
 * part of the page that changed with `replaceChildren`.
 */
export type Child = Node | string | number | false | null | undefined;
type Attrs = Record<string, unknown> & { dataset?: Record<string, string>; class?: string };

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null = null, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value as EventListener);
    else if (key === "class") el.className = String(value);
    else if (key in el && typeof value !== "string") (el as unknown as Record<string, unknown>)[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el: Element, children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c === false || c === null || c === undefined) continue;
    el.append(typeof c === "number" ? String(c) : c);
  }
}

/** Replaces an element's content. */
export function render(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren();
  append(el, children);
}

let fieldCount = 0;

/**
 * A labelled form control: `<label for>` plus the control (and an optional hint it is
 * described by). An explicit `for` keeps the accessible name to the label text alone (a
 * wrapping label would add a select's option texts to it).
 */
export function field(label: string, control: HTMLElement, hint?: string): HTMLDivElement {
  if (!control.id) control.id = `f${++fieldCount}`;
  const hintEl = hint ? h("small", { class: "hint", id: `${control.id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute("aria-describedby", hintEl.id);
  return h("div", { class: "field" }, h("label", { class: "label", for: control.id }, label), control, hintEl);
}

/** Short, local date-time for lists. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** Runs `fn` at most once per `ms`, after the last call (changes.updated comes in bursts). */
export function debounce(fn: () => void, ms: number): { (): void; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      fn();
    }, ms);
  };
  run.cancel = () => {
    if (timer) clearTimeout(timer);
  };
  return run;
}

/**
 * Whether `incoming` may replace `current`: a response that left the server before an event
 * must not overwrite the newer state the event brought (records carry `updatedAt`).
 */
export function isNotOlder<T extends { updatedAt: string }>(current: T | undefined, incoming: T): boolean {
  return current === undefined || incoming.updatedAt >= current.updatedAt;
}
