export * from "./checkpoint-meta.js";
export { CheckpointError, type CheckpointProblem } from "./git-runner.js";
export * from "./session-checkpoints.js";
export { ShadowStore, type Snapshot, type TreeChange } from "./shadow-store.js";
