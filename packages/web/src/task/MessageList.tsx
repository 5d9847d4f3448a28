/**
 * A session's messages in creation order, following the stream: the view sticks to the bottom
 * while the person is there. Long sessions (over 200 messages) are virtualized, so 5,000
 * messages scroll without rendering them all.
 */
import type { Message } from "@grove/protocol";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useLayoutEffect, useRef, type RefObject } from "react";
import { MessageItem } from "./Message.js";

const VIRTUAL_FROM = 200;

function useStickToBottom(el: RefObject<HTMLElement | null>, dep: unknown, onStick?: () => void) {
  const atBottom = useRef(true);
  useLayoutEffect(() => {
    const node = el.current;
    if (!node) return;
    // Only a move up lets go of the bottom: the box shrinking under the list (its block fitted to
    // the screen, WEB-40.1) also fires a scroll event, with the list where it was.
    let lastTop = node.scrollTop;
    const onScroll = () => {
      const near = node.scrollHeight - node.scrollTop - node.clientHeight < 60;
      if (node.scrollTop < lastTop - 1 || near) atBottom.current = near;
      lastTop = node.scrollTop;
    };
    node.addEventListener("scroll", onScroll);
    // The box's own height changes without a render (the conversation shares one screen with the
    // prompt box and what waits for the person, WEB-40): at the bottom, it stays there.
    const resized = new ResizeObserver(() => {
      if (atBottom.current) node.scrollTop = node.scrollHeight;
    });
    resized.observe(node);
    return () => {
      node.removeEventListener("scroll", onScroll);
      resized.disconnect();
    };
  }, [el]);
  useLayoutEffect(() => {
    const node = el.current;
    if (!node || !atBottom.current) return;
    if (onStick) onStick();
    else node.scrollTop = node.scrollHeight;
  });
  return dep;
}

function Virtual({ messages }: { messages: Message[] }) {
  const box = useRef<HTMLDivElement | null>(null);
  // Rows render in React's own time rather than synchronously inside each scroll event
  // (useFlushSync off), and the estimate is near a typical row, so few rows move when measured.
  const rows = useVirtualizer({
    count: messages.length,
    getScrollElement: () => box.current,
    estimateSize: () => 90,
    overscan: 6,
    getItemKey: (i) => messages[i]!.id,
    useFlushSync: false,
  });
  useStickToBottom(box, messages.length, () => rows.scrollToIndex(messages.length - 1, { align: "end" }));
  return (
    <div className="messages virtual" ref={box} tabIndex={0} role="region" aria-label="Messages">
      <ol style={{ height: rows.getTotalSize(), position: "relative", margin: 0, padding: 0 }}>
        {rows.getVirtualItems().map((v) => (
          <MessageItem key={v.key} m={messages[v.index]!} index={v.index} start={v.start} measure={rows.measureElement} />
        ))}
      </ol>
    </div>
  );
}

export function MessageList({ messages }: { messages: Message[] }) {
  const box = useRef<HTMLOListElement | null>(null);
  useStickToBottom(box, messages);
  if (messages.length > VIRTUAL_FROM) return <Virtual messages={messages} />;
  return (
    // Focusable: the list scrolls on its own, and a keyboard user scrolls it with the arrows.
    <ol className="messages" aria-label="Messages" aria-live="polite" ref={box} tabIndex={0}>
      {messages.map((m) => (
        <MessageItem key={m.id} m={m} />
      ))}
    </ol>
  );
}
