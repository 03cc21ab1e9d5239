import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import { AlwaysAllowed } from "@omniloop/core/internal";
import { ScriptedModel, type ScriptedTurn } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { eventually, isType, messagesOf, readFrames, sseReader, startServer, tempDirs } from "./harness.js";

/** One model for every agent; the agents of omniloop.yaml allow the shell by policy. */
function writeConfig(root: string, extra: string[] = []): void {
	writeFileSync(
		join(root, "omniloop.yaml"),
		[
			"models:",
			"  main: { provider: openai-compatible, model: fake-model, baseURL: http://127.0.0.1:9/v1 }",
			"agents:",
			"  default_agent: { model: main, approval: { shell: allow } }",
			...extra,
		].join("\n"),
	);
}

const shell = (command: string): ScriptedTurn => [{ type: "tool_call", name: "shell", args: { command } }];
const done: ScriptedTurn = [{ type: "text", text: "done" }];

describe("the shell's sandbox over the Runtime Server (docs/sandbox.md)", () => {
	it("GET /agents shows each agent's sandbox; a command cannot reach the server's own port nor see its token", async () => {
		const dirs = tempDirs();
		writeConfig(dirs.root, ["  reader: { model: main, sandbox: read-only }"]);
		const command = 'echo "token=[$OMNILOOP_TOKEN]"; curl -sS --max-time 20 "http://127.0.0.1:$(cat port)/agents"';
		const model = new ScriptedModel([shell(command), done]);
		const t = await startServer({ model, env: { OMNILOOP_TOKEN: "test-token" } }, dirs);
		writeFileSync(join(dirs.root, "port"), String(t.server.port));
		expect(t.server.sandboxNotice).toBeUndefined();
		const agents = (await (await t.api("/agents")).json()) as { agents: { id: string; sandbox: unknown }[] };
		expect(agents.agents.map(({ id, sandbox }) => ({ id, sandbox }))).toEqual([
			{ id: "default_agent", sandbox: { mode: "workspace-write", available: true } },
			{ id: "reader", sandbox: { mode: "read-only", available: true } },
		]);

		const id = await t.createSession();
		const { frames } = await readFrames(
			await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }),
		);
		const [output] = messagesOf(frames).filter(
			(m): m is Extract<OmniMessage, { type: "tool_call_output" }> => m.type === "tool_call_output",
		);
		expect(output?.output).toMatch(/^token=\[\]\ncurl: \(7\) Failed to connect to 127\.0\.0\.1 port \d+/);
		expect(output?.output).not.toContain("default_agent");
		expect(output?.output).toContain(
			"[sandbox workspace-write: this looks refused by the sandbox (a network connection)",
		);
	});

	it("without bubblewrap: the server says so, GET /agents shows why, and a shell call waits on a person despite the policy and an 'always'", async () => {
		const dirs = tempDirs();
		writeConfig(dirs.root);
		const model = new ScriptedModel([shell("echo ran > ran.txt"), done]);
		const env = { OMNILOOP_BWRAP: join(dirs.base, "no-bwrap") };
		const t = await startServer({ model, env }, dirs);
		expect(t.server.sandboxNotice).toMatch(/^The shell's sandbox is not available: bubblewrap is not installed/);
		const agents = (await (await t.api("/agents")).json()) as { agents: { sandbox: unknown }[] };
		expect(agents.agents[0]?.sandbox).toEqual({
			mode: "workspace-write",
			available: false,
			reason: `bubblewrap is not installed (no ${env.OMNILOOP_BWRAP}; on Debian or Ubuntu: apt-get install bubblewrap)`,
		});

		const id = await t.createSession();
		new AlwaysAllowed(t.home, id).add("shell");
		const stream = sseReader(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
		const asked = messagesOf(await stream.until(isType("confirmation_required"))).at(-1);
		expect(asked).toMatchObject({ type: "confirmation_required", name: "shell" });
		expect((asked as { unsandboxed?: string }).unsandboxed).toMatch(
			/^the workspace-write sandbox is not available here \(bubblewrap is not installed/,
		);
		const pending = await eventually(async () => {
			const body = (await (await t.api(`/chat/sessions/${id}`)).json()) as {
				pendingConfirmations: { correlationId: string }[];
			};
			return body.pendingConfirmations[0];
		});
		const answered = await t.api(`/chat/sessions/${id}/ask-user-response`, {
			method: "POST",
			json: { correlationId: pending.correlationId, decision: "deny" },
		});
		expect(answered.status).toBe(200);
		const rest = messagesOf(await stream.rest());
		expect(rest.find((m) => m.type === "approval_decision")).toMatchObject({ decision: "deny", by: "user" });
	});

	it("a credential stored with PUT /credentials reaches no command, whatever its name", async () => {
		const dirs = tempDirs();
		writeConfig(dirs.root);
		const model = new ScriptedModel([shell('echo "[$DEEPSEEK][$PLAIN]"'), done]);
		const t = await startServer({ model, env: { PLAIN: "kept" } }, dirs);
		const put = await t.api("/credentials/DEEPSEEK", { method: "PUT", json: { value: "stored-deep-0123456789" } });
		expect(put.status).toBe(204);
		const id = await t.createSession();
		const { frames } = await readFrames(
			await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }),
		);
		const [output] = messagesOf(frames).filter(
			(m): m is Extract<OmniMessage, { type: "tool_call_output" }> => m.type === "tool_call_output",
		);
		expect(output?.output).toBe("[][kept]\n[exit code 0]");
	});

	it("a --database file outside the home, in the workspace, is hidden from commands as from the file tools", async () => {
		const dirs = tempDirs();
		writeConfig(dirs.root);
		const model = new ScriptedModel([shell("head -c 15 store.db; echo; grep -c credentials store.db"), done]);
		const t = await startServer({ model, database: join(dirs.root, "store.db") }, dirs);
		const id = await t.createSession();
		const { frames } = await readFrames(
			await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }),
		);
		const [output] = messagesOf(frames).filter(
			(m): m is Extract<OmniMessage, { type: "tool_call_output" }> => m.type === "tool_call_output",
		);
		expect(output?.output).not.toContain("SQLite format");
		expect(output?.output).toContain("store.db: Permission denied");
	});
});
