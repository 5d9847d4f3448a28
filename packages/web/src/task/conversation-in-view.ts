/**
 * WEB-40: the task page opens on the conversation. Once the transcript is on the page, the window
 * scrolls so the conversation's bottom (newest message, pending question or permission, prompt
 * box) meets the screen's bottom; the conversation is at most one screen tall (styles.css), so
 * the newest message is whole and above the prompt box. Until the person scrolls the window
 * themselves, a change of the conversation's size (messages streaming in, a question arriving,
 * the prompt box growing) keeps it so; from their first scroll on, the window is theirs.
 */
import { useLayoutEffect, type RefObject } from "react";

export function useConversationInView(box: RefObject<HTMLElement | null>, ready: boolean): void {
  useLayoutEffect(() => {
    const el = box.current;
    if (!ready || !el) return;
    let placedAt = window.scrollY;
    const align = () => {
      const below = el.getBoundingClientRect().bottom - window.innerHeight;
      // A window at the top of a page that fits the screen stays there (scrollBy clamps at 0).
      if (Math.abs(below) > 0.5) window.scrollBy(0, below);
      placedAt = window.scrollY;
    };
    align();
    const follow = new ResizeObserver(() => {
      if (Math.abs(window.scrollY - placedAt) <= 1) align();
    });
    follow.observe(el);
    const release = () => {
      if (Math.abs(window.scrollY - placedAt) > 1) stop();
    };
    const stop = () => {
      follow.disconnect();
      window.removeEventListener("scroll", release);
    };
    window.addEventListener("scroll", release, { passive: true });
    return stop;
  }, [box, ready]);
}
