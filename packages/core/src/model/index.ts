export * from "./failure.js";
export * from "./gate.js";
export * from "./model-adapter.js";
