/**
 * WEB-40: the task page opens on the conversation without moving the window (WEB-40.1): the
 * header, the task's title, state and Review changes stay on the first screen. The conversation
 * block (transcript, what waits for the person, prompt box) is made exactly as tall as the room
 * left between its top and the screen's bottom with the window at its top, so its bottom meets
 * the screen's bottom; the transcript takes what the others leave and scrolls inside its own box
 * to the newest message (MessageList), so the newest message is whole and above the prompt box.
 * The room is measured again when the screen or what sits above the block changes size. The
 * window itself is never scrolled here.
 */
import { useLayoutEffect, type RefObject } from "react";

/** Below this the transcript would be too small to read: the block then runs past the screen. */
const FLOOR_PX = 320;

export function useConversationInView(box: RefObject<HTMLElement | null>, ready: boolean): void {
  useLayoutEffect(() => {
    const el = box.current;
    if (!ready || !el) return;
    const fit = () => {
      // The block's top on the page, independent of where the window is scrolled.
      const top = el.getBoundingClientRect().top + window.scrollY;
      const room = Math.floor(window.innerHeight - top);
      el.style.maxHeight = `${Math.max(room, FLOOR_PX)}px`;
    };
    fit();
    // What sits above the block (an error, the session list, the plan) changes the page's height.
    const page = new ResizeObserver(fit);
    page.observe(document.body);
    window.addEventListener("resize", fit);
    return () => {
      page.disconnect();
      window.removeEventListener("resize", fit);
      el.style.maxHeight = "";
    };
  }, [box, ready]);
}
