import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeProviderServer, fakeModelYaml } from "@omniloop/core/testing";
import { afterEach, expect } from "vitest";

/** The built CLI (the global setup builds it before any test). */
/** The bundle the installed command runs (bin/omniloop.js imports it). */
export const CLI_MAIN = fileURLToPath(new URL("../bundle/main.js", import.meta.url));

const DEFAULT_WAIT_MS = 10_000;

export type StreamName = "stdout" | "stderr" | "all";

export interface Exit {
	code: number | null;
	signal: NodeJS.Signals | null;
}

/**
 * The CLI as a child process: collects stdout and stderr and waits for a pattern in either.
 * Each stream has a cursor: a wait looks after the end of the previous match in that stream, so
 * a test can wait for the second "you> " after the first.
 */
export class CliProcess {
	readonly output: Record<StreamName, string> = { stdout: "", stderr: "", all: "" };
	readonly exited: Promise<Exit>;
	private readonly cursor: Record<StreamName, number> = { stdout: 0, stderr: 0, all: 0 };
	private readonly listeners = new Set<() => void>();
	private exit: Exit | undefined;

	constructor(readonly child: ChildProcess) {
		for (const name of ["stdout", "stderr"] as const) {
			child[name]?.setEncoding("utf8");
			child[name]?.on("data", (chunk: string) => {
				this.output[name] += chunk;
				this.output.all += chunk;
				this.notify();
			});
		}
		this.exited = new Promise((resolve) => {
			child.on("close", (code, signal) => {
				this.exit = { code, signal };
				this.notify();
				resolve(this.exit);
			});
		});
	}

	get alive(): boolean {
		return this.exit === undefined;
	}

	/** Stdout's lines, for --json checks. */
	get stdoutLines(): string[] {
		return this.output.stdout.split("\n").filter((line) => line !== "");
	}

	/** Resolves with the first match of `pattern` after the stream's cursor, and moves the cursor past it. */
	waitFor(pattern: RegExp | string, stream: StreamName = "all", timeoutMs = DEFAULT_WAIT_MS): Promise<string> {
		return new Promise((resolve, reject) => {
			const check = (): boolean => {
				const text = this.output[stream].slice(this.cursor[stream]);
				const match = typeof pattern === "string" ? indexMatch(text, pattern) : regexMatch(text, pattern);
				if (match !== undefined) {
					this.cursor[stream] += match.index + match.text.length;
					finish();
					resolve(match.text);
					return true;
				}
				if (this.exit !== undefined) {
					finish();
					reject(
						new Error(
							`the CLI exited (${JSON.stringify(this.exit)}) before ${pattern} on ${stream}\n${this.transcript()}`,
						),
					);
					return true;
				}
				return false;
			};
			const timer = setTimeout(() => {
				finish();
				reject(new Error(`timed out after ${timeoutMs} ms waiting for ${pattern} on ${stream}\n${this.transcript()}`));
			}, timeoutMs);
			const listener = () => void check();
			const finish = () => {
				clearTimeout(timer);
				this.listeners.delete(listener);
			};
			if (!check()) this.listeners.add(listener);
		});
	}

	write(text: string): void {
		this.child.stdin?.write(text);
	}

	endInput(): void {
		this.child.stdin?.end();
	}

	signal(signal: NodeJS.Signals): void {
		this.child.kill(signal);
	}

	/** Waits for the exit, failing after `timeoutMs`. */
	async waitForExit(timeoutMs = DEFAULT_WAIT_MS): Promise<Exit> {
		let timer: NodeJS.Timeout | undefined;
		const timeout = new Promise<never>((_, reject) => {
			timer = setTimeout(
				() => reject(new Error(`the CLI did not exit within ${timeoutMs} ms\n${this.transcript()}`)),
				timeoutMs,
			);
		});
		try {
			return await Promise.race([this.exited, timeout]);
		} finally {
			clearTimeout(timer);
		}
	}

	/** Kills the process if it still runs and waits for it: no test leaves one behind. */
	async stop(): Promise<void> {
		if (this.alive) this.child.kill("SIGKILL");
		await this.exited;
	}

	transcript(): string {
		return `--- stdout ---\n${this.output.stdout}\n--- stderr ---\n${this.output.stderr}`;
	}

	private notify(): void {
		for (const listener of [...this.listeners]) listener();
	}
}

function indexMatch(text: string, pattern: string): { index: number; text: string } | undefined {
	const index = text.indexOf(pattern);
	return index === -1 ? undefined : { index, text: pattern };
}

function regexMatch(text: string, pattern: RegExp): { index: number; text: string } | undefined {
	const match = pattern.exec(text);
	return match === null ? undefined : { index: match.index, text: match[0] };
}

export interface FixtureOptions {
	/** Write an omniloop.yaml whose model is the fake provider (default true). */
	config?: boolean;
	/** The fake model's wire (default openai-compatible). */
	provider?: "openai-compatible" | "openai" | "anthropic" | "openai-chat";
	/** More agents for omniloop.yaml, one `name: { … }` each (on the model `main`). */
	agents?: string[];
	/** Extra lines for system_config.yaml (the reconnect ladder is tiny unless they set `reconnect:`). */
	systemConfig?: string[];
}

/**
 * Temporary folders (home, workspace, config), a fake provider the config points at, and the
 * CLI processes started on them; `cleanup` stops all of it.
 */
export class CliFixture {
	readonly home = tempDir("omniloop-cli-home-");
	readonly workspace = tempDir("omniloop-cli-ws-");
	readonly configDir = tempDir("omniloop-cli-config-");
	private readonly processes: CliProcess[] = [];

	private constructor(
		readonly server: FakeProviderServer,
		options: FixtureOptions,
	) {
		// A tiny reconnect ladder keeps the tests that reconnect fast.
		writeFileSync(
			join(this.home, "system_config.yaml"),
			[
				...(options.systemConfig?.some((line) => line.startsWith("reconnect:"))
					? []
					: ["reconnect: { baseMs: 10, capMs: 40 }"]),
				...(options.systemConfig ?? []),
			].join("\n"),
		);
		if (options.config ?? true) {
			const yaml = fakeModelYaml(`${server.url}/v1`, {
				...(options.provider === undefined ? {} : { provider: options.provider }),
				defaultAgent: "system: You are terse.",
				...(options.agents === undefined ? {} : { agents: options.agents }),
			});
			writeFileSync(join(this.configDir, "omniloop.yaml"), yaml);
		}
	}

	static async start(options: FixtureOptions = {}): Promise<CliFixture> {
		return new CliFixture(await FakeProviderServer.start(), options);
	}

	/** A clean environment: no provider keys of the machine running the tests, a private home. */
	env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
		return {
			PATH: process.env.PATH,
			HOME: this.home,
			OMNILOOP_HOME: this.home,
			FAKE_KEY: "test-key",
			...extra,
		};
	}

	/** Starts `node bundle/main.js --config-dir <config> …args` in the workspace. */
	start(args: readonly string[], env: NodeJS.ProcessEnv = this.env()): CliProcess {
		return this.startIn(this.workspace, ["--config-dir", this.configDir, ...args], env);
	}

	/** Starts `node bundle/main.js …args` (no --config-dir added) in `cwd`. */
	startIn(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = this.env()): CliProcess {
		const child = spawn(process.execPath, [CLI_MAIN, ...args], {
			cwd,
			env,
			stdio: ["pipe", "pipe", "pipe"],
		});
		const cli = new CliProcess(child);
		this.processes.push(cli);
		return cli;
	}

	/** Runs a command to its end with stdin closed. */
	async run(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<{ cli: CliProcess; exit: Exit }> {
		const cli = this.start(args, env);
		cli.endInput();
		return { cli, exit: await cli.waitForExit() };
	}

	/** The body of the fake provider's n-th request (0-based), as sent. */
	requestBody(n: number): string {
		const request = this.server.requests[n];
		if (request === undefined)
			throw new Error(`the fake provider got ${this.server.requests.length} requests, not ${n + 1}`);
		return request.rawBody;
	}

	async cleanup(): Promise<void> {
		await Promise.all(this.processes.splice(0).map((cli) => cli.stop()));
		await this.server.close();
		for (const dir of [this.home, this.workspace, this.configDir]) rmSync(dir, { recursive: true, force: true });
	}
}

function tempDir(prefix: string): string {
	return mkdtempSync(join(tmpdir(), prefix));
}

/** Fixtures made with the returned function are cleaned up after each test of the calling file. */
export function useFixtures(): (options?: FixtureOptions) => Promise<CliFixture> {
	const made: CliFixture[] = [];
	afterEach(async () => {
		await Promise.all(made.splice(0).map((fixture) => fixture.cleanup()));
	});
	return async (options) => {
		const fixture = await CliFixture.start(options);
		made.push(fixture);
		return fixture;
	};
}

/** Asserts that every line appears in `output`, in this order (the output is shown when one is missing). */
export function expectInOrder(output: string, lines: readonly string[]): void {
	const positions = lines.map((text) => output.indexOf(text));
	expect(
		positions.every((p) => p >= 0),
		output,
	).toBe(true);
	expect([...positions].sort((a, b) => a - b)).toEqual(positions);
}
