import type { OmniMessage as CoreMessage } from "@omniloop/core";
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { OmniMessage } from "../src/index.js";
import type { omniMessage, userText } from "../src/wire/index.js";

/** Core's OmniMessage types are the source: the wire schemas must infer exactly them (checked by tsc). */
describe("the wire's OmniMessage schema", () => {
	it("infers core's OmniMessage union, message for message", () => {
		expectTypeOf<z.infer<typeof omniMessage>>().toEqualTypeOf<CoreMessage>();
		expectTypeOf<OmniMessage>().toEqualTypeOf<CoreMessage>();
		expectTypeOf<z.infer<typeof userText>>().toEqualTypeOf<Extract<CoreMessage, { type: "user_text" }>>();
	});
});
