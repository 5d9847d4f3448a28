/**
 * Error display: every failed API call ends up visible as `code: message` next to the thing
 * that failed, in a role="alert" box (screen readers announce it). Nothing is swallowed.
 */
import { describeError } from "./api.js";
import { h, render } from "./dom.js";

/** A slot for one area's last error; `show(e)` fills it, `clear()` empties it. */
export function errorSlot(): { el: HTMLElement; show(e: unknown, prefix?: string): void; clear(): void } {
  const el = h("div", { class: "error-slot" });
  return {
    el,
    show(e, prefix) {
      render(el, h("p", { class: "error", role: "alert" }, prefix ? `${prefix}: ` : "", describeError(e)));
    },
    clear() {
      el.replaceChildren();
    },
  };
}

/**
 * Runs an action from a button: disables the button while it runs and shows a failure in
 * `slot`. Resolves to the action's value, or undefined when it failed.
 */
export async function act<T>(button: HTMLButtonElement | null, slot: ReturnType<typeof errorSlot>, fn: () => Promise<T>): Promise<T | undefined> {
  if (button) button.disabled = true;
  slot.clear();
  try {
    return await fn();
  } catch (e) {
    slot.show(e);
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}
