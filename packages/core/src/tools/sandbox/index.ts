export * from "./command-sandbox.js";
export * from "./sandbox-mode.js";
export { bubblewrapPath, type SandboxSupport, sandboxSupport } from "./sandbox-probe.js";
export * from "./shell-environment.js";
