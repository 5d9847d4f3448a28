/** WEB-44 (migration 031): a person's settings by key (`editor`). */
export interface PersonSettingsTable {
  key: string;
  value: string;
  set_at: string;
}

/** WEB-44 (migration 031): a person's choices for an agent profile; null = the profile's own. */
export interface AgentSettingsTable {
  name: string;
  permission_policy: string | null;
  sandbox: string | null;
  set_at: string;
}
