import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, expect } from "vitest";
import { CLI_MAIN, type CliFixture } from "./cli-harness.js";

const run = promisify(execFile);
const DEFAULT_WAIT_MS = 10_000;

/** tmux must be installed (CI installs it; see .ci/run): without it these tests fail, saying so. */
function requireTmux(): void {
	try {
		execFileSync("tmux", ["-V"], { stdio: "ignore" });
	} catch {
		throw new Error("the terminal-UI tests drive the CLI in tmux, which is not installed: apt-get install -y tmux");
	}
}

/**
 * The CLI in a real pseudo-terminal: a private tmux server runs it in a pane of a fixed size;
 * keys are sent with send-keys, pastes with paste-buffer (bracketed, as a terminal pastes),
 * and the screen is read with capture-pane, as a person would see it.
 */
export class TmuxTerminal {
	private readonly dir = mkdtempSync(join(tmpdir(), "omniloop-tmux-"));
	private readonly socket = join(this.dir, "sock");

	private constructor(readonly columns: number) {}

	/** Starts `node bundle/main.js --config-dir <config> …args` in the fixture's workspace. */
	static async start(
		fixture: CliFixture,
		args: readonly string[],
		options: { columns?: number; rows?: number; env?: NodeJS.ProcessEnv } = {},
	): Promise<TmuxTerminal> {
		requireTmux();
		const terminal = new TmuxTerminal(options.columns ?? 100);
		const env = { ...fixture.env(), TERM: "xterm-256color", ...options.env };
		const assignments = Object.entries(env).flatMap(([key, value]) => (value === undefined ? [] : [`${key}=${value}`]));
		const command = [
			"env",
			"-i",
			...assignments,
			process.execPath,
			CLI_MAIN,
			"--config-dir",
			fixture.configDir,
			...args,
		];
		await terminal.tmux(
			"-f",
			"/dev/null",
			"new-session",
			"-d",
			"-s",
			"t",
			"-x",
			String(terminal.columns),
			"-y",
			String(options.rows ?? 40),
			"-c",
			fixture.workspace,
			// The pane stays after the CLI exits, so its last screen and exit status can be read.
			`${command.map(shellQuote).join(" ")}; echo "[exited $?]"; sleep 600`,
		);
		return terminal;
	}

	/** Types `text` as one burst (one write to the terminal). */
	async type(text: string): Promise<void> {
		await this.tmux("send-keys", "-t", "t", "-l", text);
	}

	/** Types `text` a key at a time, `delayMs` apart, as a person does. */
	async typeSlowly(text: string, delayMs: number): Promise<void> {
		for (const ch of text) {
			await this.type(ch);
			await new Promise((resolve) => setTimeout(resolve, delayMs));
		}
	}

	/** Named keys: Enter, Escape, C-c, C-d, M-Enter, Up… */
	async press(...keys: string[]): Promise<void> {
		await this.tmux("send-keys", "-t", "t", ...keys);
	}

	/** Pastes `text` the way a terminal does: inside bracketed-paste markers when the program asked for them. */
	async paste(text: string): Promise<void> {
		// From a file: a long paste does not fit in a command's arguments.
		const file = join(this.dir, "paste");
		writeFileSync(file, text);
		await this.tmux("load-buffer", "-b", "p", file);
		await this.tmux("paste-buffer", "-p", "-d", "-b", "p", "-t", "t");
	}

	/** The screen and the lines scrolled off it, as text. */
	async screen(): Promise<string> {
		const { stdout } = await this.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "t");
		return stdout.replace(/\n+$/, "\n");
	}

	/** Waits until the screen shows `pattern`; resolves with the screen. */
	async waitFor(pattern: RegExp | string, timeoutMs = DEFAULT_WAIT_MS): Promise<string> {
		const deadline = Date.now() + timeoutMs;
		let screen = "";
		while (Date.now() < deadline) {
			screen = await this.screen();
			if (typeof pattern === "string" ? screen.includes(pattern) : pattern.test(screen)) return screen;
			await new Promise((resolve) => setTimeout(resolve, 50));
		}
		throw new Error(`timed out after ${timeoutMs} ms waiting for ${pattern} on the screen:\n${screen}`);
	}

	/** With OMNILOOP_SCREENS=<dir>, writes the screen as it is now there, as `<test>-<label>.txt`. */
	async keep(label: string): Promise<void> {
		const dir = process.env.OMNILOOP_SCREENS;
		if (dir === undefined || dir === "") return;
		mkdirSync(dir, { recursive: true });
		writeFileSync(`${dir}/${screenName()}-${label}.txt`, await this.screen());
	}

	async close(): Promise<void> {
		await this.tmux("kill-server").catch(() => undefined);
		rmSync(this.dir, { recursive: true, force: true });
	}

	private tmux(...args: string[]): Promise<{ stdout: string }> {
		return run("tmux", ["-S", this.socket, ...args], { encoding: "utf8" });
	}
}

function shellQuote(word: string): string {
	return `'${word.replace(/'/g, "'\\''")}'`;
}

/** Terminals made with the returned function are closed after each test of the calling file. */
export function useTerminals(): (
	fixture: CliFixture,
	args: readonly string[],
	options?: { columns?: number; rows?: number; env?: NodeJS.ProcessEnv },
) => Promise<TmuxTerminal> {
	const made: TmuxTerminal[] = [];
	afterEach(async () => {
		const terminals = made.splice(0);
		await keepScreens(terminals);
		await Promise.all(terminals.map((terminal) => terminal.close()));
	});
	return async (fixture, args, options) => {
		const terminal = await TmuxTerminal.start(fixture, args, options);
		made.push(terminal);
		return terminal;
	};
}

/**
 * With OMNILOOP_SCREENS=<dir>, each test's last screens are written there as text, named after
 * the test: what a person saw, for a review or a report.
 */
async function keepScreens(terminals: readonly TmuxTerminal[]): Promise<void> {
	const dir = process.env.OMNILOOP_SCREENS;
	if (dir === undefined || dir === "") return;
	mkdirSync(dir, { recursive: true });
	const name = screenName();
	for (const [i, terminal] of terminals.entries()) {
		writeFileSync(`${dir}/${name}${terminals.length > 1 ? `-${i + 1}` : ""}.txt`, await terminal.screen());
	}
}

function screenName(): string {
	return (expect.getState().currentTestName ?? "test").replace(/[^\w]+/g, "-").slice(0, 80);
}
