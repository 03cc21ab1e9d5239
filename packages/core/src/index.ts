export * from "./checkpoints/index.js";
export * from "./config/index.js";
export * from "./engine/index.js";
export * from "./instructions/index.js";
export * from "./messages/index.js";
export * from "./model/index.js";
export * from "./tools/index.js";
export * from "./trace/index.js";
