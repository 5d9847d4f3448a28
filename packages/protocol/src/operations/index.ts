/**
 * The HTTP API's one operation table (`@grove/protocol/operations`): every operation under
 * `/api/v1`, keyed by its operationId. The server registers, validates, forwards and documents
 * routes from it; the CLI and the page call them through `callOperation`, so a renamed path or a
 * changed body is a type error in every client.
 */
export * from "./operation.js";
export * from "./table.js";
export * from "./types.js";
export * from "./agents.js";
export * from "./inbox.js";
export * from "./lifecycle.js";
export * from "./meta.js";
export * from "./repositories.js";
export * from "./review.js";
export * from "./sessions.js";
export * from "./tasks.js";
export * from "./terminal.js";
export * from "./usage.js";
export * from "./workflows.js";
export * from "./settings.js";
export { callOperation, operationRequest, type Fetcher, type OperationArgs, type OperationInput, type OperationRequest } from "./client.js";
export { OPERATION_ROUTES } from "./routes.js";
