/**
 * The attention inbox in the header: a badge with the count, a list of what needs the person
 * (each links to its task), "dismiss", and the opt-in for browser notifications.
 */
import { useEffect, useRef, useState } from "react";
import {
  ATTENTION_LABEL,
  type AttentionItem,
  attention,
  disableNotifications,
  dismiss,
  enableNotifications,
  needsYou,
  notificationsEnabled,
} from "./live/attention.js";
import { QuestionAnswer } from "./ui/QuestionAnswer.js";
import { useStore } from "./live/store.js";
import { Link, useLocation } from "./router.js";

/** The inbox's own address: a link or a home-screen shortcut opens the board with the inbox open. */
export const INBOX_PATH = "/inbox";

export function Inbox() {
  const items = useStore(attention);
  // The count is what still needs the person; read items stay listed until their cause clears them.
  const needs = needsYou(items);
  const seen = items.filter((i) => !needs.includes(i));
  const count = needs.length;
  const { pathname } = useLocation();
  const [open, setOpen] = useState(pathname === INBOX_PATH);
  // Arriving at /inbox (a link, the back button) opens it.
  useEffect(() => {
    if (pathname === INBOX_PATH) setOpen(true);
  }, [pathname]);
  const [enabled, setEnabled] = useState(notificationsEnabled());
  const root = useRef<HTMLDivElement | null>(null);
  // The panel closes like a menu: Escape, or a click anywhere else on the page.
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    const onDown = (e: PointerEvent) => !root.current?.contains(e.target as Node) && setOpen(false);
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onDown);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onDown);
    };
  }, [open]);
  return (
    <div className="inbox" ref={root}>
      <button
        type="button"
        className="inbox-button"
        aria-expanded={open}
        aria-controls="inbox-panel"
        onClick={() => setOpen(!open)}
        aria-label={`Inbox ${count} (things that need you)`}
      >
        Inbox{" "}
        <span className={`badge count ${count ? "hot" : ""}`} data-count={count}>
          {count}
        </span>
      </button>
      {open ? (
        <section id="inbox-panel" className="inbox-panel" aria-label="Attention inbox">
          <div className="actions">
            {enabled ? (
              <button type="button" className="secondary small" onClick={() => (disableNotifications(), setEnabled(false))}>
                Turn off browser notifications
              </button>
            ) : (
              <button type="button" className="secondary small" onClick={() => void enableNotifications().then(setEnabled)}>
                Turn on browser notifications
              </button>
            )}
            {items.length ? (
              <button type="button" className="secondary small" onClick={() => dismiss(() => true)}>
                Dismiss all
              </button>
            ) : null}
          </div>
          {needs.length === 0 ? <p className="empty">Nothing needs you right now.</p> : null}
          {/* One count everywhere (LIVE-4.8): the badge counts the first list; what was seen already
              waits under its own heading until its cause clears it. */}
          {needs.length ? (
            <ul className="plain inbox-needs" aria-label="Needs you">
              {needs.map((i) => (
                <InboxRow key={i.id} item={i} close={() => setOpen(false)} />
              ))}
            </ul>
          ) : null}
          {seen.length ? (
            <>
              <h3 className="inbox-seen-head">Seen, not counted</h3>
              <ul className="plain inbox-seen" aria-label="Seen, not counted">
                {seen.map((i) => (
                  <InboxRow key={i.id} item={i} close={() => setOpen(false)} />
                ))}
              </ul>
            </>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}

function InboxRow({ item: i, close }: { item: AttentionItem; close: () => void }) {
  return (
    <li className={`attention kind-${i.kind}${i.read ? " read" : ""}`} data-kind={i.kind} data-read={i.read}>
      <strong>{ATTENTION_LABEL[i.kind]}</strong>{" "}
      <Link href={`/tasks/${i.taskId}`} onClick={close}>
        {i.text}
      </Link>{" "}
      <button type="button" className="secondary small" aria-label={`Dismiss: ${i.text}`} onClick={() => dismiss((x) => x.id === i.id)}>
        Dismiss
      </button>
      {i.kind === "question" ? <QuestionAnswer item={i} label={`Answer: ${i.text}`} /> : null}
    </li>
  );
}
