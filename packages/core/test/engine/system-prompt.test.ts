import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import { callTool, ScriptedModel, say } from "../../src/model/scripted.js";
import { crashCopy, resumeCrashed } from "../crash-helpers.js";
import { cleanup, collect, echoTool, harness, runText, scriptByPurpose, summary } from "../harness.js";

afterEach(cleanup);

describe("the built-in system prompt", () => {
	it("is byte-identical on every request: turns, an overflow-free automatic compaction, a resumed Session's requests", async () => {
		const tools = [echoTool()];
		const { session, home, model } = await harness(
			scriptByPurpose(
				[[callTool("echo", { text: "a" })], [say("ok")], [say("again")]],
				[[say("[summary]s[/summary]")]],
			),
			{ tools, approval: { "*": "allow" }, settings: { compaction: { maxSessionTurns: 2 } } },
		);
		await collect(session.run([userText("go")]));
		await collect(session.run([userText("more")]));
		const dir = crashCopy(home, session.id);
		const m2 = new ScriptedModel(scriptByPurpose([[say("x")]], [[say("[summary]t[/summary]")]]));
		const resumed = await resumeCrashed(dir, session.id, m2, { tools, approval: { "*": "allow" } });
		await collect(resumed.run([userText("after")]));
		const systems = [...model.requests, ...m2.requests].map((r) => r.system);
		expect(systems[0]).toEqual(expect.stringContaining("omniloop"));
		expect(new Set(systems).size).toBe(1);
		expect(model.requests.some((r) => r.purpose === "compaction")).toBe(true);
	});

	it('system: "" sends no system prompt, compaction requests included', async () => {
		const { session, model } = await harness(scriptByPurpose([[say("ok")]], [[say("[summary]s[/summary]")]]), {
			system: "",
		} as never);
		await collect(session.run([userText("go")]));
		await collect(session.compact());
		expect(model.requests.map((r) => r.system)).toEqual([undefined, undefined]);
	});

	it("an agent with no system gets a built-in system prompt (what it is, the workspace path, the OS, the date, its tools, to ask before destructive actions), byte-identical on every request of the Session, resumed or compacted", async () => {
		const { session, model, agent, workspace } = await harness(
			scriptByPurpose([[callTool("echo", { text: "a" }, "c1")], [say("done")]], [summary("s")]),
			{ tools: [echoTool()] },
		);
		await runText(session, "go");
		await collect(session.compact());
		const resumed = await agent.resumeSession(session.id);
		await runText(resumed, "again");
		const systems = new Set(model.requests.map((r) => r.system));
		expect(model.requests.length).toBeGreaterThanOrEqual(4);
		expect(systems.size).toBe(1);
		const system = model.requests[0]?.system ?? "";
		expect(system).toContain("omniloop");
		expect(system).toContain(workspace);
		expect(system).toContain(process.platform);
		expect(system).toContain(new Date().toISOString().slice(0, 10));
		expect(system).toContain("echo");
		expect(system).toMatch(/ask first/);
	});

	it('system: "" opts out: no system prompt is sent', async () => {
		const { session, model } = await harness([[say("ok")]], { system: "" });
		await runText(session, "go");
		expect(model.requests[0]?.system).toBeUndefined();
	});
});
