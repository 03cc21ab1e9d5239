export * from "./ai-sdk/index.js";
export * from "./demo/demo-model.js";
export * from "./failure.js";
export * from "./gate.js";
export * from "./model-adapter.js";
export * from "./timeouts.js";
