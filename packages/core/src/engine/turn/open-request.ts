import type { Usage } from "../../messages/omni-message.js";
import type { ModelFailure } from "../../model/failure.js";
import type { ModelRead } from "./model-read.js";

/** One model request in flight: its stream, the usage it reported, and whether its request_end is still owed. */
export interface OpenRequest {
	readonly read: ModelRead;
	usage: Usage | undefined;
	open: boolean;
	/** A time limit passed and the model never answered its aborted signal: why the Task ended. */
	unanswered?: ModelFailure;
}
