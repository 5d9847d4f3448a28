import type { Kysely } from "kysely";
import { ScopedValue } from "../domain/scoped-value.js";
import type { CreationBarrier } from "./barrier-writes.js";
import type { Ctx, DB, StoreDialect } from "./schema.js";
import { runInTransaction } from "./transaction.js";
import { ReviewStore } from "./review-store.js";
import { RunnersStore } from "./runners-store.js";
import { PlacementStore } from "./placement-store.js";
import { InboxStore } from "./inbox-store.js";
import { McpStore } from "./mcp-store.js";
import { UsageStore } from "./usage-store.js";
import { AgentBudgetStore } from "./agent-budget-store.js";
import { SettingsStore } from "./settings-store.js";
import { WorkflowStore } from "./workflow-store.js";

/**
 * The store's foundation (see `Store` in store.ts): the connection, the transaction joined by
 * every method called inside one, the LC-2 creation barrier, and the per-aggregate sub-stores.
 */
export abstract class StoreCore {
  readonly dialect: StoreDialect;
  protected readonly db: Kysely<DB>;
  protected barrier: CreationBarrier = async () => {};
  /** The transaction the current async context runs in, if any (see `transaction`). */
  private readonly current = new ScopedValue<{ trx: Kysely<DB>; open: boolean }>();

  /** Review comments and pull requests (review-store.ts). */
  readonly review = new ReviewStore(() => ({ db: this.q, dialect: this.dialect }));

  /** The runners registry (runners-store.ts). */
  readonly runners = new RunnersStore(() => this.q);
  /** Task labels and repository runners for placement (placement-store.ts). */
  readonly placement = new PlacementStore(() => this.q);
  /** LIVE-4: the durable attention inbox (inbox-store.ts). */
  readonly inbox = new InboxStore(() => this.q);
  /** MCP-2: what agents report through Grove's MCP server (mcp-store.ts). */
  readonly mcp = new McpStore(() => this.q);
  /** WF-1/WF-2: workflows, step entries and runs (workflow-store.ts). */
  readonly workflows = new WorkflowStore(() => this.q);
  /** USE-1/USE-2: usage totals, the ledger, budgets (usage-store.ts). */
  /** WEB-44: a person's settings and agent profile choices (settings-store.ts). */
  readonly settings = new SettingsStore(() => this.q);
  readonly usage = new UsageStore(
    () => ({ db: this.q, dialect: this.dialect }),
    (fn) => this.tx(fn),
  );
  /** USE-2: daily caps per agent profile (agent-budget-store.ts). */
  readonly agentBudgets = new AgentBudgetStore(() => this.q);

  /** Use `openStore`; this takes an already migrated database. */
  constructor(db: Kysely<DB>, dialect: StoreDialect) {
    this.db = db;
    this.dialect = dialect;
  }

  /** Closes the connection (SQLite) or the pool (PostgreSQL). */
  close(): Promise<void> {
    return this.db.destroy();
  }

  /**
   * LC-2 hook: `check` runs inside every barrier transaction (reserveLaunch,
   * mergeEnvironmentRepos) after the task row is locked, with the transaction (a
   * Kysely<DB>, see `transaction`) and the task id; it throws
   * AppError("task_cleanup_in_progress") to refuse. Default: no-op.
   */
  setCreationBarrier(check: (trx: unknown, taskId: string) => Promise<void>): void {
    this.barrier = check;
  }

  /**
   * Runs `fn` inside one transaction (SQLite: BEGIN IMMEDIATE); `trx` is a Kysely<DB>.
   * Store methods called from inside `fn` (in its async context) join this transaction,
   * and so do nested `transaction` calls: without that, a store method inside `fn` would
   * wait forever for SQLite's single connection, or run outside the transaction on
   * PostgreSQL. Do not leave work running past `fn`'s promise.
   */
  transaction<T>(fn: (trx: unknown) => Promise<T>): Promise<T> {
    return this.tx(({ db }) => fn(db));
  }

  /** Where a single statement runs: the caller's open transaction, or the database. */
  protected get q(): Kysely<DB> {
    const c = this.current.get();
    return c?.open ? c.trx : this.db;
  }

  protected async tx<T>(fn: (ctx: Ctx) => Promise<T>): Promise<T> {
    const c = this.current.get();
    if (c?.open) return fn({ db: c.trx, dialect: this.dialect });
    return runInTransaction(this.db, this.dialect, async (trx) => {
      const scope = { trx, open: true };
      try {
        return await this.current.run(scope, () => fn({ db: trx, dialect: this.dialect }));
      } finally {
        // Work that outlives the transaction (a stray promise) must not run on a connection
        // that went back to the pool: from now on it uses the database directly.
        scope.open = false;
      }
    });
  }
}
