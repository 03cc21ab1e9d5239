import { mkdirSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { reportUsage, say } from "../../src/model/scripted.js";
import { listSessions, saveTitle } from "../../src/session-store/session-index.js";
import { cleanup, harness, runText } from "../harness.js";

afterEach(cleanup);

describe("the list of Sessions", () => {
	it("shows each Session with its agent, model, dates, usage and title (the saved one, else the first prompt)", async () => {
		const { session, agent } = await harness([[reportUsage({ input: 10, output: 2 }), say("hi")], [say("again")]]);
		await runText(session, "Plan a trip to Lisbon\nwith details");
		const second = await agent.createSession({ workspaceDir: session.workspaceDir });
		await runText(second, "Second one");
		saveTitle(agent.home, second.id, "A saved title");
		const listed = listSessions(agent.home);
		expect(listed.map((s) => s.sessionId).sort()).toEqual([session.id, second.id].sort());
		const first = listed.find((s) => s.sessionId === session.id);
		expect(first).toMatchObject({
			agentId: "test_agent",
			model: "scripted:model",
			title: "Plan a trip to Lisbon",
			usage: { input: 10, output: 2, total: 12 },
			traceFiles: 1,
		});
		expect(listed.find((s) => s.sessionId === second.id)?.title).toBe("A saved title");
	});

	it("is empty for a new home, and skips a damaged Session folder", async () => {
		const { agent, session, home } = await harness([[say("x")]]);
		expect(listSessions(`${home}/nowhere`)).toEqual([]);
		await runText(session, "go");
		mkdirSync(`${agent.home}/sessions/broken`, { recursive: true });
		writeFileSync(`${agent.home}/sessions/broken/trace.jsonl`, "not json\n");
		expect(listSessions(agent.home).map((s) => s.sessionId)).toEqual([session.id]);
	});
});
