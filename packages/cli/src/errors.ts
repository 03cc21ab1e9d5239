import { ConnectionError } from "@omniloop/client";
import {
	AgentConfigError,
	ConfigError,
	ProviderConfigError,
	RunInputError,
	SessionNotFoundError,
	TraceFormatError,
} from "@omniloop/core";
import { TitleError } from "@omniloop/core/internal";
import { EXIT } from "./exit-codes.js";

/** The command line was used wrongly (a bad option value, an unknown session): exit code 2. */
export class UsageError extends Error {
	override readonly name = "UsageError";
}

/** A person was asked to choose (which Session to resume) and chose nothing: said, and exit code 0. */
export class NothingChosen extends Error {
	override readonly name = "NothingChosen";
}

/** What the CLI says about an error that ends it, and the exit code it ends with. */
export function describeFailure(error: unknown): { message: string; code: number } {
	if (error instanceof NothingChosen) return { message: error.message, code: EXIT.ok };
	if (error instanceof UsageError || error instanceof SessionNotFoundError || error instanceof TitleError) {
		return { message: error.message, code: EXIT.usage };
	}
	// Configuration problems are the user's to fix before anything can run, like bad usage.
	if (error instanceof ConfigError || error instanceof AgentConfigError || error instanceof ProviderConfigError) {
		return { message: error.message, code: EXIT.usage };
	}
	if (error instanceof RunInputError || error instanceof TraceFormatError) {
		return { message: error.message, code: EXIT.error };
	}
	// The CLI calls only omniloop serve: the likely fix is to start it, or to name the right one.
	if (error instanceof ConnectionError) {
		return { message: `${error.message}; is omniloop serve running there? (--url, OMNILOOP_URL)`, code: EXIT.error };
	}
	if (error instanceof Error) {
		return { message: process.env.OMNILOOP_DEBUG ? (error.stack ?? error.message) : error.message, code: EXIT.error };
	}
	return { message: String(error), code: EXIT.error };
}
