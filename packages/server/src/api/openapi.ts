import type { ErrorCode } from "@grove/protocol";
import { API_OPERATIONS, type Operation, type OperationId } from "@grove/protocol/operations";

/**
 * One operation of the HTTP API as the OpenAPI document shows it: the table's entry with its
 * operationId. `operationId` is stable: client generators name their methods after it
 * (camelCase, after the use case: `createTask`, `promptSession`). Every operation may answer
 * `401 unauthorized` (bearer token, optional on loopback) besides its listed `errors`.
 */
export interface Op extends Operation {
  operationId: OperationId;
}

/**
 * Operations the forwarding seam (forward.ts) sends to the task's runner can also
 * answer `runner_offline` (that runner is gone), `runner_unreachable` (it did not answer) and
 * `cluster_secret_missing` (this runner has no GROVE_CLUSTER_SECRET to forward with).
 */
const FORWARD_ERRORS: ErrorCode[] = ["runner_offline", "runner_unreachable", "cluster_secret_missing"];

/** Every operation of the table, in its order, forwarded ones with the forwarding seam's errors. */
export const OPERATIONS: Op[] = (Object.entries(API_OPERATIONS) as [OperationId, Operation][]).map(([operationId, op]) => {
  if (!op.forward) return { ...op, operationId };
  const errors = [...(op.errors ?? [])];
  for (const e of FORWARD_ERRORS) if (!errors.includes(e)) errors.push(e);
  return { ...op, operationId, errors };
});
