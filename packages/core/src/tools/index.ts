export * from "./approval-policy.js";
export * from "./builtins/index.js";
export * from "./environment.js";
export * from "./mcp/index.js";
export * from "./subagent.js";
export * from "./tool.js";
export * from "./tool-execution.js";
export * from "./tool-registry.js";
