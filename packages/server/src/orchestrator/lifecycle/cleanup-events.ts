import { type CleanupJobRecord, cleanupJobView } from "../../domain/cleanup-job.js";
import type { Deps } from "../context.js";

/** `cleanup_job.updated` with the public `CleanupJob` shape of `@grove/protocol` (never the internal snapshot). */
export function publishJob(deps: Pick<Deps, "bus">, job: CleanupJobRecord | undefined): void {
  if (job) deps.bus.publish("cleanup_job.updated", { job: cleanupJobView(job) });
}
