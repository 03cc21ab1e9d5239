export * from "./loop-detection.js";
export * from "./summary.js";
export * from "./tool-result-clearing.js";
