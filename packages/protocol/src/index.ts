export * from "./errors.js";
export * from "./schemas.js";
export * from "./events.js";
export * from "./review.js";
export * from "./lists.js";
export * from "./runners.js";
export * from "./brief.js";
export * from "./inbox.js";
