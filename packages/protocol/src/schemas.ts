/**
 * The HTTP API's shapes, one file per concern; this barrel keeps `./schemas.js` the one
 * import path for the protocol's own modules and the package index.
 */
export * from "./schemas-tasks.js";
export * from "./schemas-sessions.js";
export * from "./schemas-environments.js";
export * from "./schemas-changes.js";
export * from "./schemas-agents.js";
export * from "./schemas-lifecycle.js";
export * from "./schemas-bodies.js";
