/** A tiny observable value for page-wide state outside the data cache (notices, attention). */
import { useSyncExternalStore } from "react";

export interface Store<T> {
  get(): T;
  set(next: T | ((cur: T) => T)): void;
  subscribe(l: () => void): () => void;
}

export function store<T>(initial: T): Store<T> {
  let value = initial;
  const ls = new Set<() => void>();
  return {
    get: () => value,
    set(next) {
      value = typeof next === "function" ? (next as (cur: T) => T)(value) : next;
      ls.forEach((l) => l());
    },
    subscribe(l) {
      ls.add(l);
      return () => ls.delete(l);
    },
  };
}

export function useStore<T>(s: Store<T>): T {
  // The same value serves a server-side render (the component tests render without a window).
  return useSyncExternalStore(s.subscribe, s.get, s.get);
}

/** A one-line notice shown above the current view (e.g. "This task was deleted"). */
export const notice = store<string | null>(null);
