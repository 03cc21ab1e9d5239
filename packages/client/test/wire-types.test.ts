import type {
	Checkpoint as CoreCheckpoint,
	FileChange as CoreFileChange,
	OmniMessage as CoreMessage,
	PendingConfirmation as CorePending,
	RestoreDone,
} from "@omniloop/core";
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { Checkpoint, FileChange, OmniMessage, PendingConfirmation, RestoreAnswer } from "../src/index.js";
import type { omniMessage, userText } from "../src/wire/index.js";

/** Core's types are the source: the wire schemas must infer exactly them (checked by tsc, `npm run typecheck`). */
describe("the wire's schemas agree with core's types", () => {
	it("the OmniMessage union, message for message", () => {
		expectTypeOf<z.infer<typeof omniMessage>>().toEqualTypeOf<CoreMessage>();
		expectTypeOf<OmniMessage>().toEqualTypeOf<CoreMessage>();
		expectTypeOf<z.infer<typeof userText>>().toEqualTypeOf<Extract<CoreMessage, { type: "user_text" }>>();
	});

	it("checkpoints, file changes, restores and pending confirmations", () => {
		expectTypeOf<Checkpoint>().toEqualTypeOf<CoreCheckpoint>();
		expectTypeOf<FileChange>().toEqualTypeOf<CoreFileChange>();
		expectTypeOf<RestoreAnswer>().toEqualTypeOf<RestoreDone>();
		expectTypeOf<PendingConfirmation>().toEqualTypeOf<CorePending>();
	});
});
