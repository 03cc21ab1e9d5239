import { join } from "node:path";
import { createAgent, type OmniMessage, SessionStore, userText } from "@omniloop/core";
import { ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { importTraceUsage } from "../src/host/trace-usage.js";
import { openStore } from "../src/store/open-store.js";
import { onCleanup, tempDirs } from "./harness.js";

const usage = (total: number) => ({ type: "usage" as const, usage: { input: total - 1, output: 1, total } });

/** A SessionStore that counts the messages its histories hand out: what an import read. */
class CountingSessions extends SessionStore {
	read = 0;
	override history(sessionId: string, options?: Parameters<SessionStore["history"]>[1]): OmniMessage[] {
		const messages = super.history(sessionId, options);
		this.read += messages.length;
		return messages;
	}
}

describe("importing the usage of a Session the CLI ran in-process", () => {
	it("reads only the history after the store's last usage row, and adds the rows after it", async () => {
		const { home, root } = tempDirs();
		const agent = await createAgent({
			agentId: "default_agent",
			home,
			configDir: root,
			env: {},
			model: new ScriptedModel([
				[{ type: "text", text: "first" }, usage(10)],
				[{ type: "text", text: "second" }, usage(20)],
			]),
		});
		const session = await agent.createSession({ workspaceDir: root });
		for (const text of ["one", "two"])
			for await (const _ of session.run([userText(text)])) {
				// Drained: the Trace holds the Task.
			}
		await session.close();
		const sessions = new CountingSessions(home);
		const history = sessions.history(session.id);
		const [seen, ranAlone] = history.filter((m) => m.type === "token_usage");
		if (seen === undefined || ranAlone === undefined) throw new Error("the Tasks left no token_usage");

		const { store } = await openStore(join(home, "omniloop.db"));
		onCleanup(() => store.close());
		// The server saw the first Task live; the second ran in-process after it.
		const row = {
			id: session.id,
			agentId: "default_agent",
			model: "m",
			workspaceDir: root,
			title: null,
			createdAt: 1,
			updatedAt: 1,
			lockCredential: null,
		};
		await store.addUsage({
			sessionId: session.id,
			seq: seen.seq,
			agentId: "default_agent",
			model: "m",
			ts: seen.ts,
			...seen.request,
		});
		sessions.read = 0;
		await importTraceUsage(store, sessions, row);

		expect((await store.usageRows({ sessionId: session.id })).map((r) => [r.seq, r.total])).toEqual([
			[seen.seq, 10],
			[ranAlone.seq, 20],
		]);
		expect(sessions.read).toBe(history.filter((m) => m.seq > seen.seq).length);
		expect(sessions.read).toBeLessThan(history.length);
	});
});
