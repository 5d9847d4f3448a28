/**
 * WEB-40: the task page opens on the conversation. Once the transcript is on the page, the window
 * scrolls so the conversation's bottom (newest message, pending question or permission, prompt
 * box) meets the screen's bottom; the conversation is at most one screen tall (styles.css), so
 * the newest message is whole and above the prompt box. While the window stays where this put
 * it, a change of the conversation's size (a permission arriving, the prompt box growing) keeps
 * it aligned; once the person scrolls elsewhere, the page leaves the window alone.
 */
import { useLayoutEffect, useRef, type RefObject } from "react";

export function useConversationInView(box: RefObject<HTMLElement | null>, ready: boolean): void {
  const placedAt = useRef<number | null>(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (!ready || !el || placedAt.current !== null) return;
    const align = () => {
      const below = el.getBoundingClientRect().bottom - window.innerHeight;
      if (Math.abs(below) > 0.5) window.scrollBy(0, below);
      placedAt.current = window.scrollY;
    };
    const below = el.getBoundingClientRect().bottom - window.innerHeight;
    // A page that fits the screen is left as it is.
    if (below <= 0) return;
    align();
    const follow = new ResizeObserver(() => {
      if (placedAt.current !== null && Math.abs(window.scrollY - placedAt.current) <= 1) align();
    });
    follow.observe(el);
    // Scrolled by the person: from then on the window is theirs.
    const release = () => {
      if (placedAt.current !== null && Math.abs(window.scrollY - placedAt.current) > 1) follow.disconnect();
    };
    window.addEventListener("scroll", release, { passive: true });
    return () => {
      follow.disconnect();
      window.removeEventListener("scroll", release);
    };
  }, [box, ready]);
}
