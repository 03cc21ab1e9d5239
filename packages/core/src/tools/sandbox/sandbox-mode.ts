/**
 * How the shell's commands are confined (an agent's `sandbox` in omniloop.yaml; docs/sandbox.md):
 * `workspace-write` (the default) writes only in the workspace and the Session's temp dir,
 * `read-only` writes only in the temp dir, `off` runs commands as the user with no sandbox. Both
 * sandboxed modes read everywhere but the omniloop home, and reach no network but the agent's
 * allowed hosts (`network`).
 */
export type SandboxMode = "workspace-write" | "read-only" | "off";

export const SANDBOX_MODES = ["workspace-write", "read-only", "off"] as const satisfies readonly SandboxMode[];

export const DEFAULT_SANDBOX_MODE: SandboxMode = "workspace-write";

/**
 * Whether an agent's commands run as configured. `available` is false when the mode asks for a
 * sandbox this machine cannot give (no bubblewrap, no user namespaces, macOS); `reason` says why.
 * A mode of `off` is always available: nothing is asked of the machine.
 */
export interface SandboxState {
	mode: SandboxMode;
	available: boolean;
	reason?: string;
}

/** The state of an agent configured for `mode` on a machine whose sandbox support is `support`. */
export function sandboxState(
	mode: SandboxMode,
	support: { available: true } | { available: false; reason: string },
): SandboxState {
	if (mode === "off" || support.available) return { mode, available: true };
	return { mode, available: false, reason: support.reason };
}
