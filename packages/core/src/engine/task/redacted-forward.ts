import type { OmniMessage, Origin } from "../../messages/omni-message.js";
import type { TaskHooks } from "../../tools/tool.js";

/**
 * Forwards a message that a nested Session of this Task already redacted, tagged with `origin`
 * (its own, or this one when it has none); returns what was emitted.
 */
export type RedactedForward = (message: OmniMessage, origin: Origin) => OmniMessage;

/**
 * The engine's own path for a subagent's stream, beside the public `TaskHooks.forward` (which
 * any tool may call, so it redacts every message). Keyed by the hooks a Task hands its tools, so
 * only code that holds this module (the engine's subagent runner) can take it.
 */
const paths = new WeakMap<TaskHooks, RedactedForward>();

export function registerRedactedForward(hooks: TaskHooks, forward: RedactedForward): void {
	paths.set(hooks, forward);
}

/** The Task's redacted-forward path; undefined for hooks made outside a Task (detachedTaskHooks). */
export function redactedForwardOf(hooks: TaskHooks): RedactedForward | undefined {
	return paths.get(hooks);
}
