export * from "./errors.js";
export * from "./schemas.js";
export * from "./events.js";
export * from "./review.js";
