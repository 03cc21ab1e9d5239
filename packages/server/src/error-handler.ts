import {
	AgentConfigError,
	CheckpointError,
	ConfigError,
	ModelError,
	RunInputError,
	SessionBusyError,
	SessionNotFoundError,
	TraceFormatError,
} from "@omniloop/core";
import { HttpError } from "./errors.js";
import { StoreBusyError } from "./store/busy-retry.js";

/** Any error a route throws, as an API error: typed ones keep their meaning, the rest are 500. */
export function toHttpError(error: unknown): HttpError {
	if (error instanceof HttpError) return error;
	if (error instanceof SessionBusyError) return new HttpError("session_busy", error.message);
	if (error instanceof RunInputError) return new HttpError("invalid_body", error.message);
	if (error instanceof SessionNotFoundError) return new HttpError("not_found", error.message);
	// A config problem (a credential variable not set, a bad omniloop.yaml) is the server's state.
	if (error instanceof ConfigError) return new HttpError("invalid_state", error.message);
	// So is an agent that omniloop.yaml now defines wrongly (an approval rule for no tool, a tool
	// listed twice), found as a Session loads with it.
	if (error instanceof AgentConfigError) return new HttpError("invalid_state", error.message);
	if (error instanceof StoreBusyError) return new HttpError("store_busy", error.message);
	// A model a route asked outside a Task (a title) failed: the provider's doing, said as such.
	if (error instanceof ModelError)
		return new HttpError("model_failed", `the model failed (${error.failure.class}): ${error.failure.message}`);
	if (error instanceof TraceFormatError) return new HttpError("trace_damaged", error.message);
	if (error instanceof CheckpointError) {
		if (error.problem === "not_found") return new HttpError("not_found", error.message);
		// A git command that failed is the server's fault, not the Session's state (docs/checkpoints.md).
		if (error.problem === "git") return new HttpError("internal", error.message);
		return new HttpError("invalid_state", error.message);
	}
	return new HttpError("internal", error instanceof Error ? error.message : String(error));
}
