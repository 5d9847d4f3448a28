import type { Db } from "./schema.js";

/** WEB-44: a person's choices for one agent profile; an absent field leaves the profile's own value. */
export interface AgentSettingRecord {
  name: string;
  permissionPolicy?: "auto_approve" | "ask";
  sandbox?: "confined" | "off";
}

/** WEB-44 persistence (migration 031): a person's settings by key, and per agent profile. Reached as `store.settings`. */
export class SettingsStore {
  constructor(private readonly db: () => Db) {}

  /** A person's setting (`editor`), if set. */
  async get(key: string): Promise<string | undefined> {
    const r = await this.db().selectFrom("person_settings").select("value").where("key", "=", key).executeTakeFirst();
    return r?.value;
  }

  /** Sets (`value`) or clears (`undefined`) a person's setting. */
  async set(key: string, value: string | undefined, now: string): Promise<void> {
    if (value === undefined) {
      await this.db().deleteFrom("person_settings").where("key", "=", key).execute();
      return;
    }
    await this.db()
      .insertInto("person_settings")
      .values({ key, value, set_at: now })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value, set_at: now }))
      .execute();
  }

  /** Every agent profile a person changed. */
  async agentSettings(): Promise<AgentSettingRecord[]> {
    const rows = await this.db().selectFrom("agent_settings").selectAll().orderBy("name").execute();
    return rows.map(toAgentSetting);
  }

  /** The person's choices for one agent profile, if any (read at every launch, WEB-44). */
  async agentSetting(name: string): Promise<AgentSettingRecord | undefined> {
    const r = await this.db().selectFrom("agent_settings").selectAll().where("name", "=", name).executeTakeFirst();
    return r ? toAgentSetting(r) : undefined;
  }

  /** Writes the person's choices for one profile: the given fields replace theirs, the others stay. */
  async putAgentSetting(s: AgentSettingRecord, now: string): Promise<void> {
    const changed = {
      ...(s.permissionPolicy !== undefined ? { permission_policy: s.permissionPolicy } : {}),
      ...(s.sandbox !== undefined ? { sandbox: s.sandbox } : {}),
      set_at: now,
    };
    await this.db()
      .insertInto("agent_settings")
      .values({ name: s.name, permission_policy: s.permissionPolicy ?? null, sandbox: s.sandbox ?? null, set_at: now })
      .onConflict((oc) => oc.column("name").doUpdateSet(changed))
      .execute();
  }
}

function toAgentSetting(r: { name: string; permission_policy: string | null; sandbox: string | null }): AgentSettingRecord {
  return {
    name: r.name,
    ...(r.permission_policy === "ask" || r.permission_policy === "auto_approve" ? { permissionPolicy: r.permission_policy } : {}),
    ...(r.sandbox === "confined" || r.sandbox === "off" ? { sandbox: r.sandbox } : {}),
  };
}
