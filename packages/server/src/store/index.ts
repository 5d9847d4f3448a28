/** The store's public surface: everything outside src/store imports from here. */
export { openStore, type OpenStoreOptions } from "./open.js";
export { Store } from "./store.js";
export type { CreationBarrier, LaunchReservation } from "./barrier-writes.js";
export type { DB, StoreDialect } from "./schema.js";
