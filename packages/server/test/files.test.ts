import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import { createGate, ScriptedModel } from "@omniloop/core/testing";
import { describe, expect, it } from "vitest";
import { eventually, isType, messagesOf, readFrames, sseReader, startServer, tempDirs } from "./harness.js";

type Json = Record<string, unknown>;

/** omniloop.yaml in `root`: the default agent allows every call (the built-in tools change real files). */
function allowAll(root: string): void {
	writeFileSync(
		join(root, "omniloop.yaml"),
		[
			"models:",
			'  main: { provider: openai-compatible, model: m, baseURL: "http://127.0.0.1:9/v1" }',
			"agents:",
			'  default_agent: { model: main, approval: { "*": allow } }',
		].join("\n"),
	);
}

const write = (path: string, content: string) => [
	{ type: "tool_call" as const, name: "write_file", args: { path, content } },
];
const say = (text: string) => [{ type: "text" as const, text }];

describe("checkpoints, undo, rewind, fork and instructions over HTTP", () => {
	it("lists checkpoints, shows a restore's diff, undoes (409 while a Task runs), restores the restore, files changed; events reach the stream", async () => {
		const dirs = tempDirs();
		allowAll(dirs.root);
		const gate = createGate();
		const model = new ScriptedModel([
			write("a.txt", "agent\n"),
			say("done"),
			[{ type: "gate", gate }, ...say("later")],
		]);
		const t = await startServer({ model }, dirs);
		const id = await t.createSession();
		await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "write" } }));
		expect(readFileSync(join(t.root, "a.txt"), "utf8")).toBe("agent\n");
		const { checkpoints } = (await (await t.api(`/chat/sessions/${id}/checkpoints`)).json()) as {
			checkpoints: { id: string; reason: string }[];
		};
		expect(checkpoints.map((c) => c.reason)).toEqual(["turn"]);
		const diff = (await (await t.api(`/chat/sessions/${id}/checkpoints/${checkpoints[0]?.id}/diff`)).json()) as {
			files: Json[];
		};
		expect(diff.files).toEqual([{ path: "a.txt", status: "deleted", diff: expect.stringContaining("-agent") }]);
		// A Task runs: a restore is refused with 409 session_busy.
		const events = sseReader(await t.api(`/chat/sessions/${id}/events?after=0`));
		const busy = await t.api(`/chat/sessions/${id}/messages`, {
			method: "POST",
			json: { text: "wait" },
			headers: { Prefer: "respond-async" },
		});
		expect(busy.status).toBe(202);
		const refused = await t.api(`/chat/sessions/${id}/undo`, { method: "POST", json: {} });
		expect(refused.status).toBe(409);
		expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("session_busy");
		// So is a fork: it would copy a history in the middle of a turn.
		const forkRefused = await t.api(`/chat/sessions/${id}/fork`, { method: "POST", json: { seq: 1 } });
		expect(forkRefused.status).toBe(409);
		expect(((await forkRefused.json()) as { error: { code: string } }).error.code).toBe("session_busy");
		gate.release();
		await events.until(isType("done"));
		await events.until(isType("done"));
		// The Task has ended for the Session too (with Postgres its lease goes after the done frame).
		await eventually(async () => {
			const { sessions } = (await (await t.api("/chat/sessions")).json()) as { sessions: Json[] };
			return sessions.find((s) => s.id === id)?.status === "idle" ? true : undefined;
		});
		// What an undo would restore, to preview it: the turn's checkpoint, then (undone) none.
		const target = (await (await t.api(`/chat/sessions/${id}/undo-target`)).json()) as { checkpoint?: Json };
		expect(target.checkpoint).toMatchObject({ id: checkpoints[0]?.id, reason: "turn" });
		const undone = (await (await t.api(`/chat/sessions/${id}/undo`, { method: "POST", json: {} })).json()) as Json;
		expect(undone).toMatchObject({ restored: ["a.txt"], conflicts: [] });
		expect(await (await t.api(`/chat/sessions/${id}/undo-target`)).json()).toEqual({});
		expect(existsSync(join(t.root, "a.txt"))).toBe(false);
		const restored = messagesOf(await events.until(isType("checkpoint_restored")));
		expect(restored.at(-1)?.type).toBe("checkpoint_restored");
		// The answer carries what the undo recorded, as the stream did: no reader needs the history again.
		expect(undone.events).toEqual(restored.slice(-2));
		expect(restored.slice(-2).map((m) => m.type)).toEqual(["checkpoint_created", "checkpoint_restored"]);
		const again = await t.api(`/chat/sessions/${id}/checkpoints/${undone.before}/restore`, {
			method: "POST",
			json: {},
		});
		expect(((await again.json()) as Json).restored).toEqual(["a.txt"]);
		expect(readFileSync(join(t.root, "a.txt"), "utf8")).toBe("agent\n");
		const changed = (await (await t.api(`/chat/sessions/${id}/files-changed`)).json()) as { files: Json[] };
		expect(changed.files.map((f) => [f.path, f.status])).toEqual([["a.txt", "added"]]);
		const unknown = await t.api(`/chat/sessions/${id}/checkpoints/0000000000/restore`, { method: "POST", json: {} });
		expect(unknown.status, await unknown.clone().text()).toBe(404);
		await events.close();
	});

	it("rewind and fork: the history goes back (and replays so), a fork is a new Session with its parent named and its files in a new folder beside the workspace (inside it: 400)", async () => {
		const dirs = tempDirs();
		allowAll(dirs.root);
		const model = new ScriptedModel([write("a.txt", "one\n"), say("one"), write("a.txt", "two\n"), say("two")]);
		const t = await startServer({ model }, dirs);
		const workspace = join(t.root, "proj");
		mkdirSync(workspace);
		const id = await t.createSession({ workspaceDir: workspace });
		for (const text of ["first", "second"]) {
			await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text } }));
		}
		const read = (await (await t.api(`/chat/sessions/${id}`)).json()) as { messages: OmniMessage[] };
		const second = read.messages.filter((m) => m.type === "user_text")[1]?.seq as number;
		const bad = await t.api(`/chat/sessions/${id}/rewind`, { method: "POST", json: { seq: second + 1 } });
		expect(bad.status).toBe(400);
		// A fork folder inside the workspace would be in its checkpoints (and an undo there would delete it).
		const nested = await t.api(`/chat/sessions/${id}/fork`, {
			method: "POST",
			json: { seq: second, workspaceDir: "proj/copy" },
		});
		expect(nested.status).toBe(400);
		const refusal = ((await nested.json()) as { error: { code: string; message: string } }).error;
		expect(refusal.code).toBe("invalid_body");
		expect(refusal.message).toContain(`${join(workspace, "copy")} and the parent's workspace ${workspace}`);
		expect(existsSync(join(workspace, "copy"))).toBe(false);
		// What the new folder does not get is named in the answer (docs/checkpoints.md).
		writeFileSync(join(workspace, ".gitignore"), ".env\n");
		writeFileSync(join(workspace, ".env"), "KEY=1\n");
		const fork = await t.api(`/chat/sessions/${id}/fork`, {
			method: "POST",
			json: { seq: second, workspaceDir: "copy" },
		});
		expect(fork.status).toBe(201);
		const forked = (await fork.json()) as Json;
		expect(forked).toMatchObject({
			workspaceDir: join(t.root, "copy"),
			parent: { sessionId: id, seq: second },
			leftOut: [{ path: ".env", reason: "ignored" }],
		});
		expect(existsSync(join(t.root, "copy", ".env"))).toBe(false);
		expect(readFileSync(join(t.root, "copy", "a.txt"), "utf8")).toBe("one\n");
		const rewound = await t.api(`/chat/sessions/${id}/rewind`, { method: "POST", json: { seq: second, files: true } });
		expect(rewound.status).toBe(200);
		const rewind = (await rewound.json()) as { rewound: OmniMessage; restore: { events: OmniMessage[] } };
		expect(rewind.rewound).toMatchObject({ type: "session_rewound", toSeq: second });
		expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("one\n");
		const after = (await (await t.api(`/chat/sessions/${id}`)).json()) as { messages: OmniMessage[] };
		// What the answer says it recorded is what the history holds, in order.
		expect(after.messages.slice(-3)).toEqual([...rewind.restore.events, rewind.rewound]);
		const forkRead = (await (await t.api(`/chat/sessions/${forked.id}`)).json()) as {
			session: Json;
			messages: OmniMessage[];
		};
		// The fork's parent is named wherever the Session is: its detail and the list.
		expect(forkRead.session.parent).toEqual({ sessionId: id, seq: second });
		const { sessions } = (await (await t.api("/chat/sessions")).json()) as { sessions: Json[] };
		expect(sessions.find((s) => s.id === forked.id)?.parent).toEqual({ sessionId: id, seq: second });
		expect(sessions.find((s) => s.id === id)).not.toHaveProperty("parent");
		expect(forkRead.messages.filter((m) => m.type === "user_text").map((m) => (m as { text: string }).text)).toEqual([
			"first",
		]);
	});

	it("a git command that fails is 500 internal, naming what git said, not 409", async () => {
		const dirs = tempDirs();
		allowAll(dirs.root);
		const t = await startServer({ model: new ScriptedModel([write("a.txt", "agent\n"), say("done")]) }, dirs);
		const id = await t.createSession();
		await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "write" } }));
		const { checkpoints } = (await (await t.api(`/chat/sessions/${id}/checkpoints`)).json()) as {
			checkpoints: { id: string }[];
		};
		// The shadow store's objects gone: git cannot read the checkpoint.
		rmSync(join(dirs.home, "checkpoints.git", "objects"), { recursive: true });
		const diff = await t.api(`/chat/sessions/${id}/checkpoints/${checkpoints[0]?.id}/diff`);
		expect(diff.status).toBe(500);
		const error = ((await diff.json()) as { error: { code: string; message: string } }).error;
		expect(error.code).toBe("internal");
		expect(error.message).toContain("git");
	});

	it("GET /chat/sessions/:id lists the AGENTS.md files loaded; a reload reads them again and says so in the stream", async () => {
		const dirs = tempDirs();
		allowAll(dirs.root);
		mkdirSync(join(dirs.root, "app"));
		writeFileSync(join(dirs.root, "AGENTS.md"), "root rules\n");
		writeFileSync(join(dirs.root, "app", "AGENTS.md"), "app rules\n");
		const t = await startServer({ model: new ScriptedModel([say("hi")]) }, dirs);
		const id = await t.createSession({ workspaceDir: "app" });
		const read = (await (await t.api(`/chat/sessions/${id}`)).json()) as { session: { instructions: Json[] } };
		expect(read.session.instructions).toEqual([
			{ path: join(t.root, "AGENTS.md"), bytes: 11, truncated: false },
			{ path: join(t.root, "app", "AGENTS.md"), bytes: 10, truncated: false },
		]);
		writeFileSync(join(dirs.root, "app", "AGENTS.md"), "app rules, longer now\n");
		const events = sseReader(await t.api(`/chat/sessions/${id}/events?after=0`));
		const reload = await t.api(`/chat/sessions/${id}/instructions/reload`, { method: "POST", json: {} });
		const reloaded = (await reload.json()) as { instructions: Json[]; event: OmniMessage };
		expect(reloaded.instructions[1]).toMatchObject({ bytes: 22 });
		const loaded = messagesOf(await events.until(isType("instructions_loaded"))).at(-1);
		expect(loaded?.type).toBe("instructions_loaded");
		expect(reloaded.event).toEqual(loaded);
		await events.close();
	});

	it("a fork's folder may not leave the workspace roots through a symbolic link: 403 forbidden, nothing written outside", async () => {
		const dirs = tempDirs();
		allowAll(dirs.root);
		const outside = join(dirs.base, "outside");
		mkdirSync(outside);
		symlinkSync(outside, join(dirs.root, "link"));
		const t = await startServer({ model: new ScriptedModel([write("a.txt", "one\n"), say("one")]) }, dirs);
		const id = await t.createSession();
		await readFrames(await t.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "first" } }));
		const read = (await (await t.api(`/chat/sessions/${id}`)).json()) as { messages: OmniMessage[] };
		const seq = read.messages.find((m) => m.type === "user_text")?.seq as number;
		for (const workspaceDir of ["link", "link/new"]) {
			const fork = await t.api(`/chat/sessions/${id}/fork`, { method: "POST", json: { seq, workspaceDir } });
			expect(fork.status).toBe(403);
			expect(((await fork.json()) as { error: Json }).error).toMatchObject({ code: "forbidden" });
		}
		expect(readdirSync(outside)).toEqual([]);
	});
});
