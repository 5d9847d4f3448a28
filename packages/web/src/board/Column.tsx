/**
 * One column of the board: a drop target for its state, scrolling on its own, and virtualized
 * so 10,000 tasks render only the cards in view.
 */
import type { Task } from "@grove/protocol";
import { useDroppable } from "@dnd-kit/core";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useRef } from "react";
import { label } from "../ui/Field.js";
import { TaskCard } from "./TaskCard.js";

export function Column({ state, tasks, repoName, draggable }: { state: Task["state"]; tasks: Task[]; repoName: (id: string) => string; draggable: boolean }) {
  const { setNodeRef, isOver } = useDroppable({ id: state });
  const scroller = useRef<HTMLDivElement | null>(null);
  const rows = useVirtualizer({ count: tasks.length, getScrollElement: () => scroller.current, estimateSize: () => 118, overscan: 4, getItemKey: (i) => tasks[i]!.id });
  const headingId = `col-${state}`;
  return (
    <section ref={setNodeRef} className={`column ${isOver ? "over" : ""}`} data-state={state} aria-labelledby={headingId}>
      <h2 id={headingId}>
        {label(state)} <span className="count">{tasks.length}</span>
      </h2>
      <div className="column-body" ref={scroller} tabIndex={tasks.length ? 0 : -1} aria-label={`${label(state)} tasks`} role="region">
        {tasks.length === 0 ? <p className="empty">—</p> : null}
        <div style={{ height: rows.getTotalSize(), position: "relative" }}>
          {rows.getVirtualItems().map((v) => {
            const t = tasks[v.index]!;
            return (
              <div key={v.key} data-index={v.index} ref={rows.measureElement} className="card-slot" style={{ position: "absolute", top: 0, left: 0, right: 0, transform: `translateY(${v.start}px)` }}>
                <TaskCard task={t} repoName={repoName} draggable={draggable} />
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
