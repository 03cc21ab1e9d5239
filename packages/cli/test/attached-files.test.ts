import { existsSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { OmniMessage } from "@omniloop/core";
import { describe, expect, it } from "vitest";
import { enterLine, PROMPT } from "./chat-prompt.js";
import { type CliFixture, useFixtures } from "./cli-harness.js";

const start = useFixtures();

interface Detail {
	session: { id: string };
	messages: OmniMessage[];
}

/** `omniloop serve` on a free port for the fixture's home, and a GET of its API with its token. */
async function serve(f: CliFixture, extra: string[] = []) {
	const server = f.start(["serve", "--port", "0", ...extra]);
	const url = new URL((await server.waitFor(/^http:\/\/\S+\n/, "stdout", 20_000)).trim());
	const token = url.hash.replace("#token=", "");
	const get = async <T>(path: string): Promise<T> =>
		(await (await fetch(new URL(path, url.origin), { headers: { authorization: `Bearer ${token}` } })).json()) as T;
	const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
		fetch(new URL(path, url.origin), {
			method: "POST",
			headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
			body: JSON.stringify(json),
		});
	const onlySession = async () => {
		const { sessions } = await get<{ sessions: { id: string }[] }>("/chat/sessions");
		expect(sessions).toHaveLength(1);
		return (sessions[0] as { id: string }).id;
	};
	return { get, post, onlySession };
}

describe("the file commands in a chat attached to omniloop serve (README One world)", () => {
	it("/diff, /undo (previewed, then y), /rewind and /fork act on the server's Session", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "note.txt", content: "hello\n" } }] },
			{ text: "Wrote the note." },
			{ text: "Second answer." },
		);
		// The workspace's parent a root too: a fork's new folder goes beside the workspace (docs/checkpoints.md).
		const { get, onlySession } = await serve(f, ["--workspace-root", dirname(f.workspace)]);
		const cli = f.start(["chat"]);
		await cli.waitFor("attached to omniloop serve at", "stderr");
		await cli.waitFor(PROMPT, "stderr");
		cli.write("write a note\n");
		await cli.waitFor("Allow write_file `note.txt`?", "stderr");
		cli.write("y\n");
		await cli.waitFor("Wrote the note.", "stdout");
		await cli.waitFor(PROMPT, "stderr");
		const id = await onlySession();

		cli.write("/diff\n");
		await cli.waitFor("added note.txt", "stdout");
		await cli.waitFor("+hello", "stdout");
		await cli.waitFor(PROMPT, "stderr");

		cli.write("/undo\n");
		await cli.waitFor(/restoring checkpoint \S+ changes 1 file\(s\):/, "stdout");
		await cli.waitFor("deleted  note.txt  +0 −1", "stdout");
		await cli.waitFor("restore them? [y/N] ", "all");
		expect(existsSync(join(f.workspace, "note.txt"))).toBe(true);
		cli.write("y\n");
		await cli.waitFor("restored 1 file(s) to checkpoint", "stdout");
		await cli.waitFor(PROMPT, "stderr");
		expect(existsSync(join(f.workspace, "note.txt"))).toBe(false);
		const undone = await get<Detail>(`/chat/sessions/${id}`);
		expect(undone.messages.map((m) => m.type)).toContain("checkpoint_restored");
		// The undo went back to before the only turn's change: nothing is left to undo.
		cli.write("/undo\n");
		await cli.waitFor("no turn left to undo", "stderr");
		await cli.waitFor(PROMPT, "stderr");

		await enterLine(cli, "again", "Second answer.");
		cli.write("/rewind\n");
		await cli.waitFor("2. again", "stdout");
		// The message as the picker showed it, not the Trace's seq.
		await enterLine(cli, "2", 'rewound to before message 2 ("again")');
		const rewound = (await get<Detail>(`/chat/sessions/${id}`)).messages.find((m) => m.type === "session_rewound");
		const again = (await get<Detail>(`/chat/sessions/${id}`)).messages.find(
			(m) => m.type === "user_text" && m.text === "again",
		);
		expect(rewound).toMatchObject({ toSeq: again?.seq });

		// The rewind took "again" back: the picker offers only the first message.
		const beforeFork = cli.output.stdout.length;
		const copy = join(dirname(f.workspace), `${basename(f.workspace)}-fork`);
		writeFileSync(join(f.workspace, ".gitignore"), ".env\n");
		writeFileSync(join(f.workspace, ".env"), "KEY=1\n");
		cli.write(`/fork ${basename(copy)}\n`);
		await cli.waitFor("1. write a note", "stdout");
		cli.write("1\n");
		const line = await cli.waitFor(/forked as Session \S+;/, "stdout");
		// What the fork's folder did not get is said (the server's answer names it).
		await cli.waitFor("  .env (ignored)", "stdout");
		await cli.waitFor(PROMPT, "stderr");
		expect(cli.output.stdout.slice(beforeFork)).not.toContain("2. again");
		const forkId = /forked as Session (\S+);/.exec(line)?.[1] as string;
		const fork = await get<Detail & { session: { workspaceDir: string } }>(`/chat/sessions/${forkId}`);
		expect(fork.session.workspaceDir).toBe(copy);
		expect(existsSync(copy)).toBe(true);
		expect(existsSync(join(copy, "note.txt"))).toBe(false);
		rmSync(copy, { recursive: true, force: true });
		cli.endInput();
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
	});
});

describe("/checkpoints, /restore, /instructions reload attached, and a Task running elsewhere", () => {
	it("lists the server's checkpoints, restores one, reloads the AGENTS.md there; a restore while the web app's Task runs says the Session is busy, as in-process", async () => {
		const f = await start();
		f.server.enqueue(
			{ toolCalls: [{ id: "call_w", name: "write_file", arguments: { path: "note.txt", content: "hello\n" } }] },
			{ text: "Wrote the note." },
			{ toolCalls: [{ id: "call_sh", name: "shell", arguments: { command: "echo elsewhere" } }] },
		);
		const { get, post, onlySession } = await serve(f);
		const cli = f.start(["--yes", "chat"]);
		await cli.waitFor("attached to omniloop serve at", "stderr");
		await cli.waitFor(PROMPT, "stderr");
		await enterLine(cli, "write a note", "Wrote the note.");
		const id = await onlySession();

		const checkpoint = /checkpoint (\S+) \(turn\)/.exec(cli.output.stdout)?.[1] as string;
		await enterLine(cli, "/checkpoints", `${checkpoint}  `);
		expect(cli.output.stdout).toMatch(new RegExp(`${checkpoint} {2}\\d\\d:\\d\\d:\\d\\d {2}turn`));
		cli.write(`/restore ${checkpoint}\n`);
		await cli.waitFor("deleted  note.txt  +0 −1", "stdout");
		await cli.waitFor("restored 1 file(s) to checkpoint", "stdout");
		await cli.waitFor(PROMPT, "stderr");
		expect(existsSync(join(f.workspace, "note.txt"))).toBe(false);

		writeFileSync(join(f.workspace, "AGENTS.md"), "Answer in prose.\n");
		await enterLine(cli, "/instructions reload", "instructions reloaded:");
		const reloaded = await get<{ session: { instructions: { path: string }[] } }>(`/chat/sessions/${id}`);
		expect(reloaded.session.instructions.map((i) => i.path)).toEqual([join(f.workspace, "AGENTS.md")]);

		// A Task started elsewhere (the web app) waits for its approval: the Session is busy.
		const started = await post(`/chat/sessions/${id}/messages`, { text: "run it" }, { prefer: "respond-async" });
		expect(started.status).toBe(202);
		await expect
			.poll(async () => (await get<{ sessions: { status: string }[] }>("/chat/sessions")).sessions[0]?.status)
			.toBe("waiting_approval");
		cli.write(`/restore ${checkpoint} --yes\n`);
		await cli.waitFor(
			`/restore: session ${id} is busy: one Task runs at a time; wait for its done event or abort it`,
			"stderr",
		);
		await cli.waitFor(PROMPT, "stderr");
		expect((await post(`/chat/sessions/${id}/abort`, {})).status).toBe(200);
		cli.endInput();
		expect((await cli.waitForExit()).code, cli.transcript()).toBe(0);
	});
});
