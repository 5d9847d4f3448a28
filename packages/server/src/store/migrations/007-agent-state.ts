import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * AG-2: what a session's agent reported over ACP (modes, config options such as the model,
 * slash commands, the latest plan) and what a person chose, as one JSON text per session.
 * Only the agent's own runner writes it; it is a report, not a state machine.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema.alterTable("sessions").addColumn("agent_state", "text").execute();
}

export const m007AgentState: Migration = { name: "007-agent-state", up };
