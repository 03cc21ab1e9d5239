import { errorMessage } from "../messages/error-message.js";

/**
 * Model failures, in the four classes of docs/architecture.md §3. Classification happens once, where the
 * failure is first seen (the adapter); the engine acts on the class alone.
 */
export type FailureClass = "auth" | "timeout" | "malformed" | "fatal";

/** A failed model request, classified once where it was first seen (docs/architecture.md §3). */
export interface ModelFailure {
	class: FailureClass;
	message: string;
	/** The HTTP status, when there was one. */
	status?: number;
	/** The provider's error code (e.g. `insufficient_quota`). */
	code?: string;
	/** A wait the provider asked for (`retry-after`), uncapped; the engine caps it. */
	retryAfterMs?: number;
	/** The request did not fit the model's context window: compaction, then one retry. */
	contextOverflow?: boolean;
}

/** A model failure as a thrown error, for code paths that throw rather than return an outcome. */
export class ModelError extends Error {
	override readonly name = "ModelError";
	constructor(readonly failure: ModelFailure) {
		super(failure.message);
	}
}

/** True for the classes the engine reconnects on. */
export function isRetryable(failure: ModelFailure): boolean {
	return failure.class === "timeout" || failure.class === "malformed";
}

/** The failure for anything thrown by code that should have returned an outcome. */
export function failureFromUnknown(error: unknown): ModelFailure {
	if (error instanceof ModelError) return error.failure;
	const message = errorMessage(error);
	return { class: "fatal", message: `model adapter threw: ${message}` };
}
