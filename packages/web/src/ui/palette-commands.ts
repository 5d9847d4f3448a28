/**
 * WEB-36: commands the open view offers to the command palette (the task page's "Start a
 * session", "Review changes", …), so every step of the golden path is a palette command away.
 * A view registers its list while it is mounted; the palette lists them above the global ones.
 */
import { useEffect } from "react";
import { store, useStore } from "../live/store.js";

export interface PaletteCommand {
  id: string;
  label: string;
  hint?: string;
  run: () => void;
}

const lists = store<ReadonlyMap<string, readonly PaletteCommand[]>>(new Map());

/** Offers `commands` under `owner` while the calling component is mounted (and they are given). */
export function usePaletteCommands(owner: string, commands: readonly PaletteCommand[] | null): void {
  useEffect(() => {
    lists.set((cur) => new Map(cur).set(owner, commands ?? []));
    return () =>
      lists.set((cur) => {
        const next = new Map(cur);
        next.delete(owner);
        return next;
      });
  }, [owner, commands]);
}

/** Every view's commands, in the order the views registered. */
export function useViewCommands(): PaletteCommand[] {
  return [...useStore(lists).values()].flat();
}
