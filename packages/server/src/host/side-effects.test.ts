import type { OmniMessage, Usage } from "@omniloop/core";
import { makeMessage } from "@omniloop/core/internal";
import { describe, expect, it } from "vitest";
import { UNFENCED } from "../coordination/session-fence.js";
import type { StoredSession } from "../store/store.js";
import type { HostContext } from "./host-context.js";
import { type RecordingSession, recordMessage, usageRowOf } from "./side-effects.js";

const usage: Usage = { input: 10, output: 2, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 12 };
const row: StoredSession = {
	id: "s1",
	agentId: "boss",
	model: "anthropic:boss-model",
	workspaceDir: "/tmp/ws",
	title: "a title",
	createdAt: 1,
	updatedAt: 1,
	lockCredential: null,
};
const fromResearcher = { sessionId: "child", agentId: "researcher", parentCallId: "delegate_1" };

function tokenUsage(fields: { model?: string; origin?: OmniMessage["origin"] }): OmniMessage {
	const message = { ...makeMessage("token_usage", { request: usage, session: usage }), seq: 7 };
	if (fields.model !== undefined) message.model = fields.model;
	if (fields.origin !== undefined) message.origin = fields.origin;
	return message;
}

/** A hosted Session that records what recordMessage asks of it. */
function recording(): RecordingSession & { locks: (string | null)[]; rows: unknown[] } {
	const locks: (string | null)[] = [];
	const rows: unknown[] = [];
	const host = {
		usage: { record: (usageRow: unknown) => rows.push(usageRow) },
		coordinator: { sessionFence: () => UNFENCED },
		report: () => {},
	} as unknown as HostContext;
	return {
		id: row.id,
		host,
		row,
		lock: null,
		locks,
		rows,
		update: async () => {},
		setLock: async (credential) => {
			locks.push(credential);
		},
		credential: () => "ANTHROPIC_API_KEY",
	};
}

describe("what the server records from a Session's stream", () => {
	it("a usage row is under the agent and model that made the request: a subagent's own, not its parent's", () => {
		const hosted = recording();
		expect(usageRowOf(hosted, tokenUsage({}))).toMatchObject({ agentId: "boss", model: "anthropic:boss-model" });
		expect(usageRowOf(hosted, tokenUsage({ model: "anthropic:boss-model" }))).toMatchObject({ agentId: "boss" });
		expect(
			usageRowOf(hosted, tokenUsage({ model: "anthropic:researcher-model", origin: fromResearcher })),
		).toMatchObject({ sessionId: "s1", seq: 7, agentId: "researcher", model: "anthropic:researcher-model", total: 12 });
		recordMessage(hosted, tokenUsage({ model: "anthropic:researcher-model", origin: fromResearcher }));
		expect(hosted.rows).toMatchObject([{ agentId: "researcher", model: "anthropic:researcher-model" }]);
	});

	it("a subagent's request failing on auth does not lock this Session: its model and credential are its own", () => {
		const hosted = recording();
		recordMessage(hosted, { ...makeMessage("request_end", { status: "auth" }), origin: fromResearcher });
		expect(hosted.locks).toEqual([]);
		recordMessage(hosted, makeMessage("request_end", { status: "auth" }));
		expect(hosted.locks).toEqual(["ANTHROPIC_API_KEY"]);
	});
});
