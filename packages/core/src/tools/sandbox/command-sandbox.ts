import { chmodSync, existsSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bubblewrapArgs, type SandboxLayout } from "./bubblewrap.js";
import { HostFilterProxy, PROXY_BRIDGE } from "./network-proxy.js";
import { refusalNote } from "./refusal-note.js";
import { existingDenied, foldersOnTheWay, readOnlyFiles, socketFolders } from "./sandbox-layout.js";
import { type SandboxMode, type SandboxState, sandboxState } from "./sandbox-mode.js";
import { bubblewrapPath, sandboxSupport } from "./sandbox-probe.js";
import { makeSessionTempDir } from "./session-temp-dir.js";
import {
	type EnvironmentFilter,
	filterEnvironment,
	NO_ENVIRONMENT_FILTER,
	type SecretVariables,
} from "./shell-environment.js";

/** An agent's settings for the commands its tools run (omniloop.yaml's `sandbox` and `shell.env`). */
export interface ShellPolicy {
	readonly sandbox: SandboxMode;
	/** Hosts sandboxed commands may reach through the proxy (HostFilterProxy); none by default. */
	readonly network: readonly string[];
	readonly env: EnvironmentFilter;
}

export interface SandboxPlace {
	/** The real path the Session is confined to: commands run there, or not at all once it moved. */
	workspaceDir: string;
	/** The omniloop home, hidden from commands. */
	home: string;
	/** The host's environment: filtered for commands, and where `OMNILOOP_BWRAP` is read. */
	env: NodeJS.ProcessEnv;
	/** The host's other secret files and folders (ToolContext.deniedPaths): hidden from commands too. */
	deniedPaths?: readonly string[];
	/** Files commands may read but never change, replace or remove (ToolContext.readOnlyPaths). */
	readOnlyPaths?: readonly string[];
	/** Variables kept out of commands whatever their names: the ones models send, known credential values. */
	secrets?: SecretVariables;
}

/** The Session's workspace is no longer the folder it was confined to (swapped for a link, moved, gone). */
export class WorkspaceMovedError extends Error {
	override readonly name = "WorkspaceMovedError";
}

/** The proxy's socket, in the temp dir: the one path both sides of the network namespace see. */
const PROXY_SOCKET = ".omniloop-proxy.sock";

/** What to spawn for a command, and with which environment. */
export interface SandboxedCommand {
	file: string;
	args: string[];
	env: Record<string, string>;
}

/**
 * How a Session's commands run (docs/sandbox.md): with the filtered environment, inside
 * bubblewrap unless the mode is `off`. Where the sandbox the mode asks for is unavailable,
 * commands would run without it, which the approval policy answers by asking a person about each
 * call (see `unsandboxed`). Contract: `close` when the Session closes (it removes the temp dir).
 */
export class CommandSandbox {
	private tempDir: string | undefined;
	private proxy: Promise<HostFilterProxy> | undefined;

	private constructor(
		readonly state: SandboxState,
		private readonly bwrap: string,
		private readonly place: SandboxPlace,
		private readonly env: Record<string, string>,
		private readonly network: readonly string[] = [],
	) {}

	/** Probes the machine (once per process) and makes the Session's sandbox. Never rejects. */
	static async open(policy: ShellPolicy, place: SandboxPlace): Promise<CommandSandbox> {
		const bwrap = bubblewrapPath(place.env);
		const env = filterEnvironment(place.env, policy.env, place.secrets);
		if (policy.sandbox === "off") return new CommandSandbox({ mode: "off", available: true }, bwrap, place, env);
		const state = sandboxState(policy.sandbox, await sandboxSupport(bwrap));
		return new CommandSandbox(state, bwrap, place, env, policy.network);
	}

	/** Commands with the filtered environment and no sandbox: for a host or test that runs tools itself. */
	static unconfined(env: NodeJS.ProcessEnv = process.env, filter = NO_ENVIRONMENT_FILTER): CommandSandbox {
		const place = { workspaceDir: "/", home: "/", env };
		return new CommandSandbox({ mode: "off", available: true }, "bwrap", place, filterEnvironment(env, filter));
	}

	/**
	 * Why a command would run without the sandbox its agent is configured for; undefined when it
	 * runs as configured. A call of such a tool always needs a person's approval.
	 */
	get unsandboxed(): string | undefined {
		if (this.state.available) return undefined;
		return `the ${this.state.mode} sandbox is not available here (${this.state.reason}): the command would run unsandboxed, with every right of the user running omniloop`;
	}

	/** What to spawn for `argv` in `cwd` (with allowed hosts, its proxy is started first). */
	async command(argv: readonly string[], cwd: string): Promise<SandboxedCommand> {
		this.checkWorkspace();
		const layout = this.layout();
		if (layout === undefined) return { file: argv[0] ?? "", args: argv.slice(1), env: this.env };
		const env = { ...this.env, TMPDIR: layout.tempDir };
		let run = argv;
		if (this.network.length > 0) {
			const socket = join(layout.tempDir, PROXY_SOCKET);
			this.proxy ??= HostFilterProxy.start(socket, this.network);
			await this.proxy;
			run = [process.execPath, "-e", PROXY_BRIDGE, socket, ...argv];
		}
		return { file: this.bwrap, args: bubblewrapArgs(layout, cwd, run), env };
	}

	/** A line for the model when the output shows the sandbox refused something (see refusalNote). */
	refusal(output: string, command: string): string | undefined {
		const layout = this.layout();
		return layout === undefined ? undefined : refusalNote(output, command, layout, this.network);
	}

	async close(): Promise<void> {
		const proxy = this.proxy;
		this.proxy = undefined;
		await (await proxy?.catch(() => undefined))?.close();
		if (this.tempDir !== undefined) {
			rmSync(this.tempDir, { recursive: true, force: true });
			rmSync(placeholderOf(this.tempDir), { force: true });
		}
		this.tempDir = undefined;
	}

	/**
	 * Refuses to run anywhere but the folder the Session was confined to: a workspace swapped for a
	 * link to elsewhere would otherwise be bound (and written) wherever the link points.
	 */
	private checkWorkspace(): void {
		const confined = this.place.workspaceDir;
		let now: string;
		try {
			now = realpathSync(confined);
		} catch {
			throw new WorkspaceMovedError(`The command was not run: the workspace ${confined} no longer exists.`);
		}
		if (now !== confined) {
			throw new WorkspaceMovedError(
				`The command was not run: the workspace ${confined} now leads to ${now} (it was replaced by a link or moved); commands run only in the folder the Session was confined to.`,
			);
		}
	}

	/** The folders of a sandboxed command; undefined when commands run unsandboxed. */
	private layout(): SandboxLayout | undefined {
		const { mode } = this.state;
		if (mode === "off" || !this.state.available) return undefined;
		// Made at the first command, not at load: most Sessions never run one.
		this.tempDir ??= makeSessionTempDir();
		const placeholder = placeholderOf(this.tempDir);
		if (!existsSync(placeholder)) {
			writeFileSync(placeholder, "");
			chmodSync(placeholder, 0o000);
		}
		const home = existsSync(this.place.home) ? realpathSync(this.place.home) : undefined;
		const { workspaceDir, env } = this.place;
		const denied = existingDenied(this.place.deniedPaths ?? [], home);
		// Only a writable workspace lets a command change, create or move anything in it.
		const writable = mode === "workspace-write";
		const readOnly = writable ? readOnlyFiles(this.place.readOnlyPaths ?? [], workspaceDir) : [];
		const hidden = [...(home === undefined ? [] : [home]), ...denied.map((d) => d.path), ...readOnly];
		return {
			mode,
			workspaceDir,
			tempDir: this.tempDir,
			home,
			covered: socketFolders(env, workspaceDir),
			denied,
			placeholder,
			readOnly,
			pinned: writable ? foldersOnTheWay(hidden, workspaceDir) : [],
		};
	}
}

/** Beside the temp dir, not in it: a command must not find it in $TMPDIR. */
function placeholderOf(tempDir: string): string {
	return `${tempDir}.denied`;
}
