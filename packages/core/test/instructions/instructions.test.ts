import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/engine/agent/agent.js";
import { ScriptedModel, say } from "../../src/model/scripted.js";
import { cleanup, runText, tempDir, tracedMessages } from "../harness.js";

afterEach(cleanup);

/** A home with the person's AGENTS.md, and a git repository with AGENTS.md at its top and in `pkg/app`. */
function layout() {
	const home = tempDir("omniloop-home-");
	const repo = tempDir("omniloop-repo-");
	execFileSync("git", ["init", "-q"], { cwd: repo });
	writeFileSync(join(home, "AGENTS.md"), "Person: answer in English.\n");
	writeFileSync(join(repo, "AGENTS.md"), "Repo: use tabs.\n");
	mkdirSync(join(repo, "pkg", "app"), { recursive: true });
	writeFileSync(join(repo, "pkg", "app", "AGENTS.md"), "App: run npm test.\n");
	return { home, repo, workspace: join(repo, "pkg", "app") };
}

describe("project instructions (AGENTS.md)", () => {
	it("a project's AGENTS.md that links into the omniloop home, or out of the project, is not read; one linking to a file of the project is", async () => {
		const { home, repo, workspace } = layout();
		const outside = tempDir("omniloop-outside-");
		writeFileSync(join(home, "server.json"), '{"token":"HOME-SECRET"}');
		writeFileSync(join(outside, "notes.md"), "OUTSIDE NOTES");
		rmSync(join(repo, "AGENTS.md"));
		symlinkSync(join(home, "server.json"), join(repo, "AGENTS.md"));
		rmSync(join(workspace, "AGENTS.md"));
		symlinkSync(join(outside, "notes.md"), join(workspace, "AGENTS.md"));
		const model = new ScriptedModel([[say("ok")], [say("ok")]]);
		const agent = await createAgent({ agentId: "a", model, home, builtins: false });
		const session = await agent.createSession({ workspaceDir: workspace });
		expect(session.instructions.map((f) => f.path)).toEqual([join(home, "AGENTS.md")]);
		await runText(session, "hi");
		expect(model.requests[0]?.system).not.toContain("HOME-SECRET");
		expect(model.requests[0]?.system).not.toContain("OUTSIDE NOTES");
		expect(JSON.stringify(tracedMessages(home, session.id))).not.toContain("HOME-SECRET");
		// A link to another file of the project (AGENTS.md -> docs/agents.md) is read as usual.
		mkdirSync(join(repo, "docs"));
		writeFileSync(join(repo, "docs", "agents.md"), "Docs: keep it short.\n");
		rmSync(join(workspace, "AGENTS.md"));
		symlinkSync(join("..", "..", "docs", "agents.md"), join(workspace, "AGENTS.md"));
		const next = await agent.createSession({ workspaceDir: workspace });
		expect(next.instructions.map((f) => f.path)).toEqual([join(home, "AGENTS.md"), join(workspace, "AGENTS.md")]);
		// Nor into the host's other denied paths (a server's store inside the project).
		writeFileSync(join(repo, "store.db"), "STORE-ROWS");
		rmSync(join(workspace, "AGENTS.md"));
		symlinkSync(join(repo, "store.db"), join(workspace, "AGENTS.md"));
		const guarded = await createAgent({
			agentId: "a",
			model,
			home,
			builtins: false,
			deniedPaths: [join(repo, "store.db")],
		});
		const third = await guarded.createSession({ workspaceDir: workspace });
		expect(third.instructions.map((f) => f.path)).toEqual([join(home, "AGENTS.md")]);
	});

	it("the person's, then the repository's top down to the workspace folder (nearest last), in one delimited block of the system prompt", async () => {
		const { home, repo, workspace } = layout();
		const model = new ScriptedModel([[say("ok")]]);
		const agent = await createAgent({ agentId: "a", model, home, builtins: false });
		const session = await agent.createSession({ workspaceDir: workspace });
		expect(session.instructions.map((f) => f.path)).toEqual([
			join(home, "AGENTS.md"),
			join(repo, "AGENTS.md"),
			join(workspace, "AGENTS.md"),
		]);
		await runText(session, "hi");
		const system = model.requests[0]?.system ?? "";
		expect(system.startsWith("You are omniloop")).toBe(true);
		const block = system.slice(system.indexOf("[project_instructions]"));
		expect(block.endsWith("[/project_instructions]")).toBe(true);
		const order = ["Person: answer", "Repo: use tabs", "App: run npm test"].map((text) => block.indexOf(text));
		expect(order.every((at, i) => at > 0 && (i === 0 || at > (order[i - 1] as number)))).toBe(true);
	});

	it("bytes stay the same for the Session's life and across a resume, until a reload, which the stream and the Trace record", async () => {
		const { home, workspace } = layout();
		const model = new ScriptedModel([[say("1")], [say("2")], [say("3")]]);
		const agent = await createAgent({ agentId: "a", model, home, builtins: false });
		const session = await agent.createSession({ workspaceDir: workspace });
		await runText(session, "one");
		writeFileSync(join(workspace, "AGENTS.md"), "App: changed.\n");
		await session.close();
		const resumed = await agent.resumeSession(session.id);
		await runText(resumed, "two");
		expect(model.requests[1]?.system).toBe(model.requests[0]?.system);
		const event = await resumed.reloadInstructions();
		expect(event.type).toBe("instructions_loaded");
		expect(event.seq).toBeGreaterThan(0);
		await runText(resumed, "three");
		expect(model.requests[2]?.system).toContain("App: changed.");
		expect(tracedMessages(home, session.id).some((m) => m.type === "instructions_loaded")).toBe(true);
		// A resume after the reload sends the reloaded bytes.
		await resumed.close();
		const again = await agent.resumeSession(session.id);
		writeFileSync(join(workspace, "AGENTS.md"), "App: changed twice.\n");
		const model2 = new ScriptedModel([[say("4")]]);
		const agent2 = await createAgent({ agentId: "a", model: model2, home, builtins: false });
		const third = await agent2.resumeSession(again.id);
		await runText(third, "four");
		expect(model2.requests[0]?.system).toBe(model.requests[2]?.system);
	});

	it("a file over the limit is cut with a note that says so; the listing says truncated", async () => {
		const home = tempDir("omniloop-home-");
		const workspace = tempDir("omniloop-ws-");
		const config = tempDir("omniloop-config-");
		writeFileSync(join(config, "omniloop.yaml"), "instructions: { maxBytes: 64 }\n");
		writeFileSync(join(workspace, "AGENTS.md"), `${"é".repeat(100)}END`);
		const model = new ScriptedModel([[say("ok")]]);
		const agent = await createAgent({ agentId: "a", model, home, builtins: false, configDir: config });
		const session = await agent.createSession({ workspaceDir: workspace });
		expect(session.instructions).toEqual([{ path: join(workspace, "AGENTS.md"), bytes: 203, truncated: true }]);
		await runText(session, "hi");
		const system = model.requests[0]?.system ?? "";
		expect(system).not.toContain("END");
		expect(system).not.toContain("\uFFFD");
		expect(system).toContain("only its first 64 bytes are included");
	});

	it("a workspace outside any git repository reads only its own AGENTS.md (and the person's)", async () => {
		const home = tempDir("omniloop-home-");
		const workspace = tempDir("omniloop-ws-");
		writeFileSync(join(workspace, "AGENTS.md"), "Here.\n");
		const agent = await createAgent({ agentId: "a", model: new ScriptedModel([]), home, builtins: false });
		const session = await agent.createSession({ workspaceDir: workspace });
		expect(session.instructions.map((f) => f.path)).toEqual([join(workspace, "AGENTS.md")]);
	});
});
