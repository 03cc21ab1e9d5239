export * from "./bodies.js";
export * from "./constants.js";
export * from "./errors.js";
export * from "./messages.js";
export * from "./openapi.js";
export * from "./routes.js";
export * from "./sessions.js";
export * from "./workflows.js";
