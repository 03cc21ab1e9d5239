export * from "./checkpoint-meta.js";
export { CheckpointError } from "./git-runner.js";
export * from "./session-checkpoints.js";
