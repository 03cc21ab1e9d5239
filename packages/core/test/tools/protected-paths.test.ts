import { mkdirSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { userText } from "../../src/messages/constructors.js";
import type { JsonObject, ToolCallOutput } from "../../src/messages/omni-message.js";
import { ScriptedModel, type ScriptedTurn } from "../../src/model/scripted.js";
import { cleanup, collect, harness, strictAgent, tempDir } from "../harness.js";

afterEach(cleanup);

/** The outputs, in call order, of a Task whose model makes `calls` (name, arguments) in one turn, then stops. */
async function outputsOf(
	calls: Array<[string, JsonObject]>,
	setup: { home: string; workspace: string; deniedPaths?: string[] },
): Promise<ToolCallOutput[]> {
	const h = await harness(
		[
			calls.map(([name, args], index) => ({ type: "tool_call" as const, name, args, callId: `call_${index}` })),
			[{ type: "text", text: "done" }],
		],
		{
			builtins: true,
			home: setup.home,
			approval: { "*": "allow" },
			...(setup.deniedPaths ? { deniedPaths: setup.deniedPaths } : {}),
		},
	);
	// The harness made its own workspace; this test's is the one it names.
	const session = await h.agent.createSession({ workspaceDir: setup.workspace });
	const messages = await collect(session.run([userText("go")]));
	await session.close();
	await h.session.close();
	const outputs = messages.filter((m): m is ToolCallOutput => m.type === "tool_call_output");
	// Read-only calls start while the model streams: they finish in any order.
	return calls.map((_, index) => outputs.find((o) => o.callId === `call_${index}`) as ToolCallOutput);
}

describe("the omniloop home is never reached by the file tools, whatever the workspace", () => {
	it("refuses read_file of server.json, the store and other Sessions' Traces, and glob/grep/list_dir skip the home", async () => {
		// `omniloop serve` started in ~: the workspace holds the home.
		const workspace = realpathSync(tempDir("omniloop-user-home-"));
		const home = path.join(workspace, ".omniloop");
		mkdirSync(path.join(home, "sessions", "other"), { recursive: true });
		writeFileSync(path.join(home, "server.json"), '{"token":"SECRET-TOKEN"}\n');
		writeFileSync(path.join(home, "omniloop.db"), "SECRET-DB");
		writeFileSync(path.join(home, "sessions", "other", "trace.jsonl"), '{"text":"SECRET-TRACE"}\n');
		writeFileSync(path.join(workspace, "notes.txt"), "SECRET? no: ordinary notes\n");
		// A link inside the workspace that leads into the home is the same as the home.
		symlinkSync(home, path.join(workspace, "innocent"));
		const outputs = await outputsOf(
			[
				["read_file", { path: ".omniloop/server.json" }],
				["read_file", { path: path.join(home, "omniloop.db") }],
				["read_file", { path: ".omniloop/sessions/other/trace.jsonl" }],
				["read_file", { path: "innocent/server.json" }],
				["list_dir", { path: ".omniloop" }],
				["write_file", { path: ".omniloop/server.json", content: '{"token":"mine"}' }],
				["edit_file", { path: ".omniloop/server.json", old_string: "SECRET", new_string: "x" }],
				["glob", { pattern: "**/*" }],
				["grep", { pattern: "SECRET" }],
				["list_dir", {}],
				["grep", { pattern: "SECRET", path: ".omniloop" }],
			],
			{ home, workspace },
		);
		const [readToken, readDb, readTrace, viaLink, listHome, write, edit, glob, grep, list, grepHome] = outputs;
		for (const refused of [readToken, readDb, readTrace, viaLink, listHome, write, edit, grepHome]) {
			expect(refused?.status).toBe("error");
			expect(refused?.output).toContain(`is inside ${home}, omniloop's own data`);
		}
		expect(glob?.output).toBe("notes.txt");
		expect(grep?.output).toBe("notes.txt:1: SECRET? no: ordinary notes");
		expect(list?.output).toBe(`innocent -> ${home}\nnotes.txt`);
		for (const output of outputs) expect(output.output).not.toMatch(/SECRET-(TOKEN|DB|TRACE)/);
		// Nothing was written over.
		expect(realpathSync(path.join(home, "server.json"))).toBe(path.join(home, "server.json"));
	});

	it("refuses a host's other secrets file (deniedPaths) as the home", async () => {
		const workspace = realpathSync(tempDir("omniloop-ws-"));
		writeFileSync(path.join(workspace, "store.db"), "SECRET-STORE");
		const outputs = await outputsOf([["read_file", { path: "store.db" }]], {
			home: tempDir("omniloop-home-"),
			workspace,
			deniedPaths: [path.join(workspace, "store.db")],
		});
		expect(outputs[0]?.status).toBe("error");
		expect(outputs[0]?.output).not.toContain("SECRET-STORE");
	});
});

describe("the workspace is the real path the Session was made in, for good", () => {
	it("a workspace folder swapped for a link to elsewhere leads nowhere: the tools refuse", async () => {
		const root = realpathSync(tempDir("omniloop-swap-"));
		const workspace = path.join(root, "project");
		const elsewhere = path.join(root, "elsewhere");
		mkdirSync(workspace);
		mkdirSync(elsewhere);
		writeFileSync(path.join(elsewhere, "secret.txt"), "SECRET-ELSEWHERE\n");
		const h = await harness(
			[
				[
					{ type: "tool_call", name: "read_file", args: { path: "secret.txt" } },
					{ type: "tool_call", name: "write_file", args: { path: "planted.txt", content: "x" } },
				],
				[{ type: "text", text: "done" }],
			],
			{ builtins: true, approval: { "*": "allow" } },
		);
		const session = await h.agent.createSession({ workspaceDir: workspace });
		// After the Session was confined to it, the folder is replaced by a link.
		renameSync(workspace, path.join(root, "project-moved"));
		symlinkSync(elsewhere, workspace);
		const messages = await collect(session.run([userText("go")]));
		await session.close();
		await h.session.close();
		const outputs = messages.filter((m): m is ToolCallOutput => m.type === "tool_call_output");
		expect(outputs.map((o) => o.status)).toEqual(["error", "error"]);
		expect(outputs[0]?.output).toContain(`The workspace ${workspace} now resolves to ${elsewhere}`);
		expect(outputs[0]?.output).not.toContain("SECRET-ELSEWHERE");
		expect(() => realpathSync(path.join(elsewhere, "planted.txt"))).toThrow();
	});
});

describe("a resumed Session keeps the workspace's real path it was made with", () => {
	it("a workspace reached through a link, swapped for a link to elsewhere between processes: the resumed Session's tools, checkpoints and undo refuse, naming it", async () => {
		const root = realpathSync(tempDir("omniloop-resume-swap-"));
		const project = path.join(root, "project");
		const elsewhere = path.join(root, "elsewhere");
		const link = path.join(root, "link");
		mkdirSync(project);
		mkdirSync(elsewhere);
		writeFileSync(path.join(elsewhere, "secret.txt"), "SECRET-ELSEWHERE\n");
		symlinkSync(project, link);
		const turns: ScriptedTurn[] = [
			[
				{
					type: "tool_call",
					name: "write_file",
					args: { path: "made.txt", content: "by the agent\n" },
					callId: "made",
				},
			],
			[{ type: "text", text: "made" }],
			[
				{ type: "tool_call", name: "read_file", args: { path: "secret.txt" }, callId: "read" },
				{ type: "tool_call", name: "write_file", args: { path: "planted.txt", content: "x" }, callId: "write" },
				{ type: "tool_call", name: "shell", args: { command: "touch shell-planted.txt" }, callId: "shell" },
			],
			[{ type: "text", text: "done" }],
		];
		const home = tempDir("omniloop-home-");
		const model = new ScriptedModel(turns);
		const options = {
			model,
			home,
			builtins: true,
			checkpoints: {},
			sandbox: "off" as const,
			approval: { "*": "allow" as const },
		};
		const first = await strictAgent(options);
		const made = await first.createSession({ workspaceDir: link });
		await collect(made.run([userText("start")]));
		await made.close();
		expect(readdirSync(project)).toEqual(["made.txt"]);

		// Between the two processes, the folder the Session was made in becomes a link to elsewhere,
		// and so does the link it was reached through.
		renameSync(project, path.join(root, "project-moved"));
		symlinkSync(elsewhere, project);
		rmSync(link);
		symlinkSync(elsewhere, link);

		const resumed = await (await strictAgent(options)).resumeSession(made.id);
		const messages = await collect(resumed.run([userText("go")]));
		const undone = resumed.undo().then(
			() => "undone",
			(error: Error) => error.message,
		);
		expect(await undone).toContain(`workspace ${project} now leads to ${elsewhere}`);
		await resumed.close();
		const outputs = messages.filter((m): m is ToolCallOutput => m.type === "tool_call_output");
		// Calls that fail at once finish in any order.
		expect(outputs.map((o) => [o.callId, o.status]).sort()).toEqual([
			["read", "error"],
			["shell", "error"],
			["write", "error"],
		]);
		for (const output of outputs) {
			expect(output.output).toContain(`workspace ${project} now`);
			expect(output.output).not.toContain("SECRET-ELSEWHERE");
		}
		const failed = messages.find((m) => m.type === "checkpoint_failed");
		expect(failed?.type === "checkpoint_failed" && failed.error.message).toContain(`workspace ${project} now leads to`);
		expect(readdirSync(elsewhere)).toEqual(["secret.txt"]);
	});
});
