import type { Kysely } from "kysely";
import type { DB, StoreDialect } from "../schema.js";

/**
 * One schema version. Migrations live in code (no directory scanning) and are applied in
 * array order, each in its own transaction together with its row in `grove_migrations`
 * (ST-2). `up` receives the dialect because a few column types differ (see schema.ts).
 * A migration is never edited after it shipped; add a new one instead.
 */
export interface Migration {
  /** Stable, sortable name, e.g. "001-initial"; recorded in `grove_migrations`. */
  readonly name: string;
  up(db: Kysely<DB>, dialect: StoreDialect): Promise<void>;
}
