import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { OmniMessage } from "@omniloop/core";
import { FakeProviderServer } from "@omniloop/core/testing";
import { type Api, bearerApi } from "./bearer-api.js";
import { eventually, messagesOf, onCleanup, readFrames, tempDirs, writeFakeModelConfig } from "./harness.js";
import { freshDatabase } from "./pg-database.js";

const CLI = fileURLToPath(new URL("../../cli/dist/main.js", import.meta.url));
export const TOKEN = "cluster-token";

export interface ServerProcess {
	child: ChildProcess;
	origin: string;
	api: Api;
	/** kill -9, resolved once it is gone. */
	kill(): Promise<void>;
	/** SIGSTOP: nothing of the process runs (its timers and renewals included) until `resume`. */
	pause(): void;
	/** SIGCONT. */
	resume(): void;
}

/** A project several `omniloop serve` processes share: one Postgres database, one home, one workspace, one fake model. */
export async function clusterProject(options: { leaseMs?: number } = {}) {
	const provider = await FakeProviderServer.start();
	onCleanup(() => provider.close());
	const dirs = tempDirs();
	const database = await freshDatabase();
	writeFakeModelConfig(dirs.root, provider.url);
	writeFileSync(join(dirs.home, "system_config.yaml"), `server:\n  leaseMs: ${options.leaseMs ?? 15_000}\n`);
	return {
		provider,
		database,
		...dirs,
		/** Another server process; `home` apart from the shared one gives it no Trace files of its own. */
		serve: (home = dirs.home, url = database) => serve(url, home, dirs.root),
		/** A home of its own (as another machine has), with the project's system_config.yaml. */
		homeOf(name: string): string {
			const home = join(dirs.base, `home-${name}`);
			mkdirSync(home, { recursive: true });
			copyFileSync(join(dirs.home, "system_config.yaml"), join(home, "system_config.yaml"));
			return home;
		},
	};
}

/** `clusterProject` whose default agent runs shell calls without asking (the fencing and Jepsen tests' set-up). */
export async function shellAllowedProject(options: { leaseMs?: number } = {}) {
	const project = await clusterProject(options);
	writeFakeModelConfig(project.root, project.provider.url, { defaultAgent: "approval: { shell: allow }" });
	return project;
}

/** `GET /chat/sessions/:id` on `server`: the Session's status and its history. */
export async function sessionSummary(
	server: ServerProcess,
	id: string,
): Promise<{ session: { status: string }; messages: OmniMessage[] }> {
	return (await (await server.api(`/chat/sessions/${id}`)).json()) as {
		session: { status: string };
		messages: OmniMessage[];
	};
}

/** A Task on `server` as soon as the Session is free (another process's lease ran out): its messages. */
export async function taskWhenFree(server: ServerProcess, id: string, text: string): Promise<OmniMessage[]> {
	const response = await eventually(async () => {
		const r = await server.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text } });
		return r.status === 200 ? r : undefined;
	}, 20_000);
	return messagesOf((await readFrames(response)).frames);
}

/** What a viewer receives, collected as it comes (until its stream ends). */
export function collectMessages(response: Response): OmniMessage[] {
	const seen: OmniMessage[] = [];
	void readFrames(response, (frame) => {
		if (frame.id !== undefined) seen.push(JSON.parse(frame.data) as OmniMessage);
		return false;
	}).catch(() => {});
	return seen;
}

/** Runs the built `omniloop serve` on the database (through OMNILOOP_DATABASE_URL) and resolves once it listens. */
async function serve(database: string, home: string, root: string): Promise<ServerProcess> {
	const child = spawn(process.execPath, [CLI, "--config-dir", root, "serve", "--port", "0"], {
		cwd: root,
		env: {
			PATH: process.env.PATH,
			HOME: home,
			OMNILOOP_HOME: home,
			OMNILOOP_TOKEN: TOKEN,
			OMNILOOP_DATABASE_URL: database,
			FAKE_KEY: "k",
		},
		stdio: ["ignore", "pipe", "inherit"],
	});
	const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	onCleanup(async () => {
		child.kill("SIGKILL");
		await gone;
	});
	const firstLine = await new Promise<string>((resolve, reject) => {
		createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
		child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
	});
	const origin = new URL(firstLine).origin;
	const api = bearerApi(origin, TOKEN);
	return {
		child,
		origin,
		api,
		async kill() {
			child.kill("SIGKILL");
			await gone;
		},
		pause: () => child.kill("SIGSTOP"),
		resume: () => child.kill("SIGCONT"),
	};
}

export async function createSession(server: ServerProcess): Promise<string> {
	const response = await server.api("/chat/sessions", { method: "POST", json: {} });
	if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
	return ((await response.json()) as { id: string }).id;
}
