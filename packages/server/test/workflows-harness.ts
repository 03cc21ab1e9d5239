import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { WorkflowStatus, WorkflowView } from "@omniloop/client";
import { FakeProviderServer, type FakeReply, type RecordedProviderRequest } from "@omniloop/core/testing";
import { type Api, bearerApi } from "./bearer-api.js";
import { eventually, onCleanup, tempDirs, writeFakeModelConfig } from "./harness.js";

const CLI = fileURLToPath(new URL("../../cli/dist/main.js", import.meta.url));
export const TOKEN = "workflows-token";

export interface Served {
	child: ChildProcess;
	origin: string;
	api: Api;
	/** kill -9, and wait until it is gone. */
	kill(): Promise<void>;
}

/** Runs the built `omniloop serve` on a free port; resolves once it printed its URL. */
export async function serve(home: string, root: string, env: Record<string, string> = {}): Promise<Served> {
	const child = spawn(process.execPath, [CLI, "--config-dir", root, "serve", "--port", "0"], {
		cwd: root,
		env: { PATH: process.env.PATH, HOME: home, OMNILOOP_HOME: home, OMNILOOP_TOKEN: TOKEN, FAKE_KEY: "k", ...env },
		stdio: ["ignore", "pipe", "pipe"],
	});
	onCleanup(() => {
		child.kill("SIGKILL");
	});
	let stderr = "";
	child.stderr?.on("data", (data) => {
		stderr += String(data);
		if (process.env.WF_DEBUG) process.stderr.write(`[serve] ${String(data)}`);
	});
	const firstLine = await new Promise<string>((resolve, reject) => {
		createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
		child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
	});
	const origin = new URL(firstLine).origin;
	const api = bearerApi(origin, TOKEN);
	const kill = async () => {
		if (child.exitCode === null && child.signalCode === null) {
			const gone = new Promise((resolve) => child.once("exit", resolve));
			child.kill("SIGKILL");
			await gone;
		}
	};
	return { child, origin, api, kill };
}

export interface Plan {
	/** Shell commands the model calls in its first turn, all in one turn. */
	commands: string[];
}

function contentText(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) return content.map((part) => (part as { text?: string }).text ?? "").join("");
	return "";
}

/**
 * A stateless fake model: the last user message holding `plan:{…}` gets the plan's calls until a
 * tool output follows it, then a closing text; a prompt with no plan gets a text naming it. So a
 * turn redone after a restart gets the same answer, whatever the number of requests before it.
 */
export function planReply(request: RecordedProviderRequest, pace: Pace = {}): FakeReply {
	const messages = (request.body as { messages?: { role: string; content?: unknown }[] }).messages ?? [];
	const texts = messages.map((m) => (m.role === "user" ? contentText(m.content) : ""));
	const index = texts.findLastIndex((text) => text.includes("plan:"));
	if (index === -1) return { text: `answer to: ${texts.findLast((text) => text !== "")?.slice(0, 60) ?? ""}` };
	const plan = JSON.parse(/plan:(\{.*\})/.exec(texts[index] ?? "")?.[1] ?? "{}") as Plan;
	const outputs = messages.slice(index).filter((m) => m.role === "tool").length;
	if (outputs === 0 && plan.commands.length > 0) {
		const toolCalls = plan.commands.map((command) => ({
			name: "shell",
			arguments: { command },
			chunks: pace.chunks ?? 1,
		}));
		return { toolCalls, chunkDelayMs: pace.chunkDelayMs ?? 0 };
	}
	const text = `finished after ${outputs} outputs`;
	return { text: pace.chunks === undefined ? text : text.split(" "), chunkDelayMs: pace.chunkDelayMs ?? 0 };
}

/** How slowly the fake model streams: more, slower events leave room to be killed mid-stream. */
export interface Pace {
	chunks?: number;
	chunkDelayMs?: number;
}

/** A fake provider whose every reply is `planReply`, and a project on it. */
export async function workflowProject(extraYaml: string[] = [], pace: Pace = {}) {
	const provider = await FakeProviderServer.start();
	onCleanup(() => provider.close());
	provider.enqueue(
		...Array.from({ length: 2000 }, () => (request: RecordedProviderRequest) => planReply(request, pace)),
	);
	const dirs = tempDirs();
	writeFakeModelConfig(dirs.root, provider.url, {
		agents: ["auto: { model: main, approval: { shell: allow } }"],
		after: extraYaml,
	});
	return { provider, ...dirs };
}

/** The workflow input that makes the fake model run `commands`. */
export function planInput(commands: string[], words = "do the thing"): string {
	return `${words} plan:${JSON.stringify({ commands })}`;
}

/** Lines of a file in the workspace (none when it does not exist). */
export function linesOf(root: string, file: string): string[] {
	const path = join(root, file);
	return existsSync(path)
		? readFileSync(path, "utf8")
				.split("\n")
				.filter((line) => line !== "")
		: [];
}

export async function startWorkflow(api: Api, body: Record<string, unknown>): Promise<string> {
	const response = await api("/workflows", { method: "POST", json: body });
	if (response.status !== 202) throw new Error(`start: ${response.status} ${await response.text()}`);
	return ((await response.json()) as { id: string }).id;
}

export async function getWorkflow(api: Api, id: string): Promise<WorkflowView> {
	const response = await api(`/workflows/${id}`);
	if (response.status !== 200) throw new Error(`get: ${response.status} ${await response.text()}`);
	return (await response.json()) as WorkflowView;
}

/** Waits until the workflow's status is one of `statuses` (and `also` holds). */
export function until(
	api: Api,
	id: string,
	statuses: WorkflowStatus[],
	also: (w: WorkflowView) => boolean = () => true,
	ms = 10_000,
) {
	return eventually(async () => {
		const workflow = await getWorkflow(api, id);
		return statuses.includes(workflow.status) && also(workflow) ? workflow : undefined;
	}, ms);
}

export async function post(
	api: Api,
	path: string,
	json?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
	const response = await api(path, { method: "POST", ...(json === undefined ? {} : { json }) });
	return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
