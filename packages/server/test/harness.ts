import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OmniMessage, tool } from "@omniloop/core";
import { type FakeModelYamlOptions, fakeModelYaml, type ScriptedTurn } from "@omniloop/core/testing";
import { createParser } from "eventsource-parser";
import { afterEach } from "vitest";
import { z } from "zod";
import { createServer, type RunningServer, type ServerOptions } from "../src/index.js";
import { bearerApi } from "./bearer-api.js";
import { freshDatabase } from "./pg-database.js";

/**
 * The project's omniloop.yaml: core's fakeModelYaml for the fake provider at `providerUrl` (a
 * model `main`, its key from `${FAKE_KEY}`, the default agent on it), and `after`'s lines below.
 */
export function writeFakeModelConfig(
	root: string,
	providerUrl: string,
	{ after = [], ...options }: FakeModelYamlOptions & { after?: readonly string[] } = {},
): void {
	writeFileSync(join(root, "omniloop.yaml"), [fakeModelYaml(`${providerUrl}/v1`, options), ...after].join("\n"));
}

/** A temporary home and workspace for one test; removed after it. */
export function tempDirs(): { home: string; root: string; base: string } {
	const base = realpathSync(mkdtempSync(join(tmpdir(), "omniloop-server-")));
	const home = join(base, "home");
	const root = join(base, "work");
	mkdirSync(home);
	mkdirSync(root);
	cleanups.push(() => rmSync(base, { recursive: true, force: true }));
	return { home, root, base };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export function onCleanup(cleanup: () => Promise<void> | void): void {
	cleanups.push(cleanup);
}

export interface TestServer {
	server: RunningServer;
	home: string;
	root: string;
	/** fetch with the token. */
	api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
	/** Creates a Session and returns its id. */
	createSession(body?: Record<string, unknown>): Promise<string>;
}

const databases = new Map<string, string>();

/**
 * Starts a server on a free port with a fresh home (closed after the test). With
 * `OMNILOOP_TEST_STORE=postgres` its store is a fresh database on the run's Postgres instead of
 * SQLite, so the same tests cover both stores.
 */
export async function startServer(options: ServerOptions = {}, dirs = tempDirs()): Promise<TestServer> {
	const onPostgres = process.env.OMNILOOP_TEST_STORE === "postgres" && options.database === undefined;
	// One database per home, as one SQLite file per home: a restart on the same home finds its data.
	const database = onPostgres ? (databases.get(dirs.home) ?? (await freshDatabase())) : undefined;
	if (database !== undefined) databases.set(dirs.home, database);
	const server = await createServer({
		...(database === undefined ? {} : { database }),
		port: 0,
		home: dirs.home,
		configDir: dirs.root,
		workspaceRoots: [dirs.root],
		env: {},
		token: "test-token",
		report: () => {},
		...options,
	});
	onCleanup(() => server.close());
	const api = bearerApi(server.origin, server.token);
	return {
		server,
		home: dirs.home,
		root: dirs.root,
		api,
		async createSession(body = {}) {
			const response = await api("/chat/sessions", { method: "POST", json: body });
			if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
			return ((await response.json()) as { id: string }).id;
		},
	};
}

export interface SseFrame {
	id: string | undefined;
	data: string;
}

/**
 * Reads an SSE response frame by frame; `until` sees each frame and stops reading when it returns
 * true (the connection is then closed). Resolves when the stream ends or `until` says so.
 */
export async function readFrames(response: Response, until: (frame: SseFrame) => boolean = () => false) {
	const frames: SseFrame[] = [];
	const comments: string[] = [];
	const reader = (response.body as ReadableStream<Uint8Array>).getReader();
	const decoder = new TextDecoder();
	let stop = false;
	const parser = createParser({
		onEvent: (event) => {
			if (stop) return;
			const frame = { id: event.id, data: event.data };
			frames.push(frame);
			if (until(frame)) stop = true;
		},
		onComment: (comment) => comments.push(comment),
	});
	while (!stop) {
		const { value, done } = await reader.read();
		if (done) break;
		parser.feed(decoder.decode(value, { stream: true }));
	}
	if (stop) await reader.cancel();
	return { frames, comments };
}

/** Reads an SSE response in steps: `until` returns the frames up to the first match and keeps the stream open. */
export function sseReader(response: Response) {
	const reader = (response.body as ReadableStream<Uint8Array>).getReader();
	const decoder = new TextDecoder();
	const buffered: SseFrame[] = [];
	const parser = createParser({ onEvent: (event) => buffered.push({ id: event.id, data: event.data }) });
	let ended = false;
	return {
		async until(match: (frame: SseFrame) => boolean): Promise<SseFrame[]> {
			for (;;) {
				const index = buffered.findIndex(match);
				if (index !== -1) return buffered.splice(0, index + 1);
				if (ended) throw new Error(`the stream ended before a matching frame (${buffered.length} frames left)`);
				const { value, done } = await reader.read();
				if (done) ended = true;
				else parser.feed(decoder.decode(value, { stream: true }));
			}
		},
		async rest(): Promise<SseFrame[]> {
			while (!ended) {
				const { value, done } = await reader.read();
				if (done) ended = true;
				else parser.feed(decoder.decode(value, { stream: true }));
			}
			return buffered.splice(0);
		},
		close: () => reader.cancel(),
	};
}

/** A frame holding a message of this type. */
export const isType = (type: string) => (frame: SseFrame) => frame.data.includes(`"type":"${type}"`);

/** The OmniMessages of frames that carry an id (Session messages). */
export function messagesOf(frames: readonly SseFrame[]): OmniMessage[] {
	return frames.filter((f) => f.id !== undefined).map((f) => JSON.parse(f.data) as OmniMessage);
}

/**
 * Polls `check` until it returns a value (not undefined), or fails after `ms`. It returns as soon
 * as the check holds: the limit only turns "never" into a failure, so it is kept well above what a
 * busy machine takes (`npm run test:loaded`).
 */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
	const deadline = Date.now() + ms;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error("eventually: timed out");
		await new Promise((r) => setTimeout(r, 20));
	}
}

/** A tool that needs approval (not read-only) and records each run by its label. */
export function touchTool(runs: string[]) {
	return tool({
		name: "touch",
		description: "records that it ran",
		parameters: z.object({ label: z.string() }),
		execute: async ({ label }) => {
			runs.push(label);
			return `touched ${label}`;
		},
	});
}

export const callTouch = (label: string): ScriptedTurn => [{ type: "tool_call", name: "touch", args: { label } }];
