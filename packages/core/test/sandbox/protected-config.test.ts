import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadProjectConfig } from "../../src/config/project-config.js";
import { callTool, ScriptedModel, say } from "../../src/model/scripted.js";
import { editFileTool } from "../../src/tools/builtins/edit-file.js";
import { shellTool } from "../../src/tools/builtins/shell.js";
import { writeFileTool } from "../../src/tools/builtins/write-file.js";
import { CommandSandbox, type SandboxPlace, type ShellPolicy } from "../../src/tools/sandbox/command-sandbox.js";
import { NO_ENVIRONMENT_FILTER } from "../../src/tools/sandbox/shell-environment.js";
import { cleanup, ofType, runText, strictAgent, tempDir } from "../harness.js";
import { call, makeSandbox, type Sandbox } from "../tools/sandbox.js";

/**
 * The project's omniloop.yaml chooses the next Session's models, MCP servers and approvals, so
 * neither a sandboxed command nor a file tool may change or create it; and folders on the way to
 * what the sandbox hides cannot be moved aside to uncover it. Each check runs real commands in
 * bubblewrap, and the same command with the sandbox off shows it would otherwise go through.
 */

let box: Sandbox;
const opened: CommandSandbox[] = [];

afterEach(async () => {
	for (const sandbox of opened.splice(0)) await sandbox.close();
	box.cleanup();
	cleanup();
});

async function shell(
	command: string,
	place: Partial<SandboxPlace>,
	mode: "workspace-write" | "off" = "workspace-write",
) {
	const policy: ShellPolicy = { sandbox: mode, network: [], env: NO_ENVIRONMENT_FILTER };
	const sandbox = await CommandSandbox.open(policy, {
		workspaceDir: box.workspace,
		home: join(box.root, "home"),
		env: process.env,
		...place,
	});
	opened.push(sandbox);
	const { ctx } = box.context();
	return call(shellTool, { command }, { ...ctx, sandbox });
}

describe("the project's omniloop.yaml", () => {
	it("a sandboxed command reads it but cannot change, replace or delete it", async () => {
		box = makeSandbox();
		const config = join(box.workspace, "omniloop.yaml");
		writeFileSync(config, "models: {}\n");
		const place = { readOnlyPaths: [config] };
		expect(await shell("cat omniloop.yaml", place)).toContain("models: {}");
		await shell(
			"echo 'mcp: {x: {command: sh}}' >> omniloop.yaml; mv omniloop.yaml moved.yaml; rm -f omniloop.yaml",
			place,
		);
		expect(readFileSync(config, "utf8")).toBe("models: {}\n");
		expect(existsSync(join(box.workspace, "moved.yaml"))).toBe(false);
		// The same command unsandboxed does change it: the check above is the sandbox's doing.
		await shell("echo 'mcp: {}' >> omniloop.yaml", place, "off");
		expect(readFileSync(config, "utf8")).toContain("mcp: {}");
	});

	it("one a command creates where there was none is not read: only a restart takes it", async () => {
		box = makeSandbox();
		const config = join(box.workspace, "omniloop.yaml");
		expect(loadProjectConfig(box.workspace).file).toBeUndefined();
		await shell("printf 'mcp: {x: {command: sh}}\\n' > omniloop.yaml", { readOnlyPaths: [config] });
		expect(readFileSync(config, "utf8")).toContain("mcp");
		expect(loadProjectConfig(box.workspace)).toMatchObject({ file: undefined, config: { mcp: {} } });
	});

	it("a link to it: a command that removes the link and writes a file in its place is not read", async () => {
		box = makeSandbox();
		mkdirSync(join(box.workspace, "cfg"));
		writeFileSync(join(box.workspace, "cfg", "real.yaml"), "models: {}\n");
		symlinkSync("cfg/real.yaml", join(box.workspace, "omniloop.yaml"));
		expect(loadProjectConfig(box.workspace).file).toBeDefined();
		const config = join(box.workspace, "omniloop.yaml");
		await shell(
			"echo 'mcp: {}' >> cfg/real.yaml; rm omniloop.yaml; printf 'mcp: {x: {command: sh}}\\n' > omniloop.yaml",
			{
				readOnlyPaths: [config],
			},
		);
		expect(readFileSync(join(box.workspace, "cfg", "real.yaml"), "utf8")).toBe("models: {}\n");
		expect(loadProjectConfig(box.workspace).file).toBeUndefined();
	});

	it("a link to it: a command that points the link at a file of its own is not read", async () => {
		box = makeSandbox();
		mkdirSync(join(box.workspace, "cfg"));
		writeFileSync(join(box.workspace, "cfg", "real.yaml"), "models: {}\n");
		symlinkSync("cfg/real.yaml", join(box.workspace, "omniloop.yaml"));
		expect(loadProjectConfig(box.workspace).config.mcp).toEqual({});
		const config = join(box.workspace, "omniloop.yaml");
		// A link it cannot write through is replaced by another: the sandbox cannot stop that.
		await shell("printf 'mcp: {x: {command: sh}}\\n' > evil.yaml; ln -sfn evil.yaml omniloop.yaml", {
			readOnlyPaths: [config],
		});
		expect(readFileSync(config, "utf8")).toContain("mcp");
		expect(loadProjectConfig(box.workspace)).toMatchObject({ file: undefined, config: { mcp: {} } });
	});

	it("in a folder of the workspace, the folder cannot be moved aside and replaced", async () => {
		box = makeSandbox();
		mkdirSync(join(box.workspace, "project"));
		const config = join(box.workspace, "project", "omniloop.yaml");
		writeFileSync(config, "models: {}\n");
		await shell("mv project old; mkdir -p project; echo 'mcp: {x: {command: sh}}' > project/omniloop.yaml", {
			readOnlyPaths: [config],
		});
		expect(readFileSync(config, "utf8")).toBe("models: {}\n");
		expect(existsSync(join(box.workspace, "old"))).toBe(false);
	});

	it("write_file and edit_file refuse it, naming it", async () => {
		box = makeSandbox();
		const config = join(box.workspace, "omniloop.yaml");
		writeFileSync(config, "models: {}\n");
		const { ctx } = box.context();
		const guarded = { ...ctx, readOnlyPaths: [config] };
		await expect(call(writeFileTool, { path: "omniloop.yaml", content: "mcp: {}" }, guarded)).rejects.toThrow(
			/omniloop's project configuration/,
		);
		await expect(
			call(editFileTool, { path: "./omniloop.yaml", old_string: "models", new_string: "mcp" }, guarded),
		).rejects.toThrow(/no tool may change it/);
		expect(readFileSync(config, "utf8")).toBe("models: {}\n");
	});
});

describe("an agent whose project folder is its workspace", () => {
	it("gets an error output for a write_file to omniloop.yaml, and the file is unchanged", async () => {
		box = makeSandbox();
		const workspace = tempDir();
		writeFileSync(join(workspace, "omniloop.yaml"), "models: {}\n");
		const model = new ScriptedModel([
			[callTool("write_file", { path: "omniloop.yaml", content: "mcp: {}" }, "w1")],
			[say("ok")],
		]);
		const agent = await strictAgent({ model, home: tempDir(), configDir: workspace, builtins: true });
		const session = await agent.createSession({ workspaceDir: workspace });
		const out = await runText(session, "go", { approve: async () => "allow" });
		expect(ofType(out, "tool_call_output")[0]).toMatchObject({
			status: "error",
			output: expect.stringContaining("project configuration"),
		});
		expect(readFileSync(join(workspace, "omniloop.yaml"), "utf8")).toBe("models: {}\n");
	});
});

describe("an agent whose omniloop.yaml is a link", () => {
	it("gets an error output for a write_file through the link or to its target", async () => {
		box = makeSandbox();
		const workspace = tempDir();
		mkdirSync(join(workspace, "cfg"));
		writeFileSync(join(workspace, "cfg", "real.yaml"), "models: {}\n");
		symlinkSync("cfg/real.yaml", join(workspace, "omniloop.yaml"));
		const model = new ScriptedModel([
			[
				callTool("write_file", { path: "omniloop.yaml", content: "mcp: {}" }, "w1"),
				callTool("write_file", { path: "cfg/real.yaml", content: "mcp: {}" }, "w2"),
			],
			[say("ok")],
		]);
		const agent = await strictAgent({ model, home: tempDir(), configDir: workspace, builtins: true });
		const session = await agent.createSession({ workspaceDir: workspace });
		const out = await runText(session, "go", { approve: async () => "allow" });
		for (const output of ofType(out, "tool_call_output")) {
			expect(output).toMatchObject({ status: "error", output: expect.stringContaining("project configuration") });
		}
		expect(readFileSync(join(workspace, "cfg", "real.yaml"), "utf8")).toBe("models: {}\n");
	});
});

describe("the home inside the workspace", () => {
	it("a folder on the way to it cannot be renamed to uncover it", async () => {
		box = makeSandbox();
		const home = join(box.workspace, ".config", "omniloop");
		mkdirSync(home, { recursive: true });
		writeFileSync(join(home, "server.json"), '{"token":"secret-token"}');
		const output = await shell("mv .config .cfg; cat .cfg/omniloop/server.json .config/omniloop/server.json", { home });
		expect(output).not.toContain("secret-token");
		expect(existsSync(join(box.workspace, ".config", "omniloop", "server.json"))).toBe(true);
	});
});
