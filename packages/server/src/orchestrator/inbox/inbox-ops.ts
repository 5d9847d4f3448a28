import type { InboxItem } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import type { Deps } from "../context.js";

/** `GET /inbox`: open items (or all), newest first. */
export function listInbox(deps: Pick<Deps, "store">, state: "open" | "all"): Promise<InboxItem[]> {
  return deps.store.inbox.list(state);
}

async function itemOr404(deps: Pick<Deps, "store">, id: string): Promise<InboxItem> {
  const item = await deps.store.inbox.get(id);
  if (!item) throw new AppError("not_found", `inbox item ${id} not found`, { id });
  return item;
}

/** `POST /inbox/:id/done`: compare-and-set open → done; done already answers the item as it is. */
export async function markInboxDone(deps: Pick<Deps, "store" | "bus" | "now">, id: string): Promise<InboxItem> {
  const current = await itemOr404(deps, id);
  const done = await deps.store.inbox.markDone(id, deps.now());
  if (!done) return current.state === "done" ? current : itemOr404(deps, id);
  deps.bus.publish("inbox.updated", { item: done });
  return done;
}

/** `POST /inbox/:id/read`: the first read is kept. */
export async function markInboxRead(deps: Pick<Deps, "store" | "bus" | "now">, id: string): Promise<InboxItem> {
  await itemOr404(deps, id);
  const read = await deps.store.inbox.markRead(id, deps.now());
  if (!read) return itemOr404(deps, id);
  deps.bus.publish("inbox.updated", { item: read });
  return read;
}
