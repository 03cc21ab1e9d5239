export * from "./approval-policy.js";
export * from "./tool.js";
export * from "./tool-execution.js";
export * from "./tool-registry.js";
