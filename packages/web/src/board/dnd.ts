/**
 * Drag and drop between columns (@dnd-kit): the pointer drops where it is; the keyboard
 * (Space to pick up, ←/→ to change column, Space to drop, Escape to cancel) jumps a whole
 * column per arrow instead of dnd-kit's default 25 px steps.
 */
import { pointerWithin, rectIntersection, type CollisionDetection, type KeyboardCoordinateGetter } from "@dnd-kit/core";

export const columnCollision: CollisionDetection = (args) => {
  const hits = pointerWithin(args);
  return hits.length > 0 ? hits : rectIntersection(args);
};

export const columnKeys: KeyboardCoordinateGetter = (event, { context }) => {
  const { collisionRect, droppableRects, droppableContainers } = context;
  if (!collisionRect) return undefined;
  const dir = event.code === "ArrowRight" ? 1 : event.code === "ArrowLeft" ? -1 : 0;
  if (dir === 0) return undefined;
  event.preventDefault();
  const cols = droppableContainers
    .getEnabled()
    .map((c) => droppableRects.get(c.id))
    .filter((r): r is NonNullable<typeof r> => !!r)
    .sort((a, b) => a.left - b.left);
  const cx = collisionRect.left + collisionRect.width / 2;
  let i = cols.findIndex((r) => cx >= r.left && cx <= r.left + r.width);
  if (i < 0) i = cols.findIndex((r) => r.left > cx) - (dir > 0 ? 1 : 0);
  const target = cols[Math.max(0, Math.min(cols.length - 1, i + dir))];
  if (!target) return undefined;
  return { x: target.left + target.width / 2 - collisionRect.width / 2, y: collisionRect.top };
};
