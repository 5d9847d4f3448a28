/**
 * WEB-28: "New task" asked for from outside the board (the command palette): the board opens
 * its form on the signal, or when it mounts after the request (the palette navigates first).
 */
let pending = false;
const listeners = new Set<() => void>();

export function requestNewTask(): void {
  pending = true;
  listeners.forEach((l) => l());
}

/** Calls `open` for a request made before now and for every later one; returns the unsubscribe. */
export function onNewTaskRequest(open: () => void): () => void {
  const take = () => {
    if (!pending) return;
    pending = false;
    open();
  };
  listeners.add(take);
  take();
  return () => listeners.delete(take);
}
