import type { AgentsAnswer, CredentialInfo, TraceDamage, UsageRow } from "@omniloop/client";
import { describe, expectTypeOf, it } from "vitest";
import type { AgentDescription } from "../src/host/agents.js";
import type { CredentialInfo as HostCredential } from "../src/host/credentials.js";
import type { TraceDamage as HostDamage } from "../src/host/log/trace-damage.js";
import type { UsageRow as StoredUsageRow } from "../src/store/store.js";

/** What the server answers with, by its own types, is what the wire says (checked by tsc). */
describe("the server's answers have the wire's types", () => {
	it("credentials, usage rows, Trace damage and agents", () => {
		expectTypeOf<HostCredential>().toEqualTypeOf<CredentialInfo>();
		expectTypeOf<StoredUsageRow>().toEqualTypeOf<UsageRow>();
		expectTypeOf<HostDamage>().toEqualTypeOf<TraceDamage>();
		expectTypeOf<AgentDescription>().toExtend<AgentsAnswer["agents"][number]>();
	});
});
