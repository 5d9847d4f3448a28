import type { RunnerRecord } from "../domain/runner.js";
import * as runners from "./runners-repo.js";
import type { Db } from "./schema.js";

/** Persistence: the runners registry. Reached as `store.runners`. */
export class RunnersStore {
  constructor(private readonly db: () => Db) {}

  register(r: RunnerRecord): Promise<void> {
    return runners.registerRunner(this.db(), r);
  }
  /** False when the row is gone or marked stopped (the caller re-registers). */
  heartbeat(id: string, now: string, liveAgents: number): Promise<boolean> {
    return runners.heartbeatRunner(this.db(), id, now, liveAgents);
  }
  stop(id: string, now: string): Promise<void> {
    return runners.stopRunner(this.db(), id, now);
  }
  get(id: string): Promise<RunnerRecord | undefined> {
    return runners.getRunner(this.db(), id);
  }
  list(): Promise<RunnerRecord[]> {
    return runners.listRunners(this.db());
  }
}
