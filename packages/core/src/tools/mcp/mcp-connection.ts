import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { Readable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool as McpToolInfo, Progress } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../../messages/error-message.js";
import type { JsonObject } from "../../messages/omni-message.js";
import { McpStartError, McpToolCallError } from "./mcp-errors.js";
import { loadMcpSdk, type McpSdk, type PidKeepingTransport } from "./mcp-sdk.js";

/** One entry of the project config's `mcp:` section, with its env values already resolved. */
export interface McpServerConfig {
	command: string;
	args?: string[];
	/**
	 * Added to the few variables every server gets (PATH, HOME, USER, SHELL, TERM, LOGNAME: the
	 * SDK's default). The rest of omniloop's environment, API keys included, is not passed on.
	 */
	env?: Record<string, string>;
	/** Resolved against the `cwd` given to `startMcpServers`; that folder when absent. */
	cwd?: string;
	/**
	 * The server's `readOnlyHint`s count: a tool it marks read-only is one for the approval policy
	 * (allowed unasked by default) and may start while the model streams. Off by default, since
	 * the hint is the server's own word (the MCP spec: annotations from a server the client does
	 * not trust must not be relied on); untrusted, each of its tools asks, unless `approval` says.
	 */
	trustReadOnlyHints?: boolean;
}

export interface ConnectionSettings {
	cwd: string;
	/** Starting covers spawning, `initialize` and listing every page of tools. */
	startTimeoutMs: number;
	callTimeoutMs: number;
}

export interface CallOptions {
	signal: AbortSignal;
	onprogress(progress: Progress): void;
}

const CLIENT_INFO = { name: "omniloop", version: "0.1.0" };
/** How much of a server's stderr is kept for error messages. */
const STDERR_TAIL_CHARS = 1_000;
/** How long close() waits for the process to be gone after the SDK's own SIGTERM/SIGKILL steps. */
const EXIT_WAIT_MS = 5_000;
const EXIT_POLL_MS = 20;
/** How long a failed start waits for the rest of the server's stderr before quoting it. */
const STDERR_DRAIN_MS = 200;

type StartPhase = "initialize" | "tools/list";

/**
 * One MCP server running as a child process over stdio, with the tools it listed when it started.
 * The list is not refreshed: a Session's toolset is fixed when it is made (see ToolRegistry).
 */
export class McpServerConnection {
	readonly tools: McpToolInfo[] = [];
	private readonly client: Client;
	private readonly transport: PidKeepingTransport;
	private hasExited = false;
	private closing: Promise<void> | undefined;
	private stderrTail = "";
	private stderrEnded: Promise<void> = Promise.resolve();
	private readonly cwd: string;

	private constructor(
		readonly server: string,
		readonly command: string,
		config: McpServerConfig,
		private readonly settings: ConnectionSettings,
		sdk: McpSdk,
	) {
		this.cwd = resolve(settings.cwd, config.cwd ?? ".");
		this.client = sdk.newClient(CLIENT_INFO);
		this.transport = sdk.newTransport({
			command: config.command,
			args: config.args ?? [],
			env: config.env ?? {},
			cwd: this.cwd,
			// Piped, not inherited: a server's logs must not write over the host's terminal.
			stderr: "pipe",
		});
		this.keepStderrTail();
		// The SDK calls the client's onclose when the child process has closed (or failed to spawn).
		this.client.onclose = () => {
			this.hasExited = true;
		};
	}

	/** Starts the server and lists its tools. Rejects with an McpStartError, the process gone. */
	static async start(server: string, config: McpServerConfig, settings: ConnectionSettings) {
		const connection = new McpServerConnection(server, config.command, config, settings, await loadMcpSdk());
		await connection.begin();
		return connection;
	}

	/** Calls one of the server's tools. Rejects with an McpToolCallError when no answer came. */
	async callTool(tool: string, args: JsonObject, options: CallOptions): Promise<CallToolResult> {
		try {
			const result = await this.client.callTool({ name: tool, arguments: args }, undefined, {
				signal: options.signal,
				onprogress: options.onprogress,
				timeout: this.settings.callTimeoutMs,
			});
			// Only an older protocol's result looks like this; the default result schema never does.
			if ("toolResult" in result) return { content: [{ type: "text", text: JSON.stringify(result.toolResult) }] };
			return result;
		} catch (error) {
			throw new McpToolCallError(this.server, tool, this.callFailure(error, options.signal), { cause: error });
		}
	}

	/** Stops the server: ends its stdin, then SIGTERM, then SIGKILL; resolves once it is gone. Idempotent. */
	close(): Promise<void> {
		this.closing ??= this.shutdown();
		return this.closing;
	}

	private async begin(): Promise<void> {
		const deadline = new AbortController();
		const timer = setTimeout(() => deadline.abort(), this.settings.startTimeoutMs);
		const request = { signal: deadline.signal, timeout: this.settings.startTimeoutMs };
		let phase: StartPhase = "initialize";
		try {
			await this.client.connect(this.transport, request);
			phase = "tools/list";
			await this.listTools(request);
		} catch (error) {
			await this.abandon();
			throw new McpStartError(this.server, this.command, this.startFailure(error, phase, deadline.signal.aborted), {
				cause: error,
			});
		} finally {
			clearTimeout(timer);
		}
	}

	private async listTools(request: { signal: AbortSignal; timeout: number }): Promise<void> {
		// A server without the tools capability (resources or prompts only) has no tools to list.
		if (this.client.getServerCapabilities()?.tools === undefined) return;
		let cursor: string | undefined;
		do {
			const page = await this.client.listTools(cursor === undefined ? undefined : { cursor }, request);
			this.tools.push(...page.tools);
			cursor = page.nextCursor;
		} while (cursor !== undefined);
	}

	private startFailure(error: unknown, phase: StartPhase, timedOut: boolean): string {
		let detail: string;
		if (isNotFound(error) && !existsSync(this.cwd)) detail = `could not start: its cwd "${this.cwd}" does not exist`;
		else if (isNotFound(error)) detail = `could not start: command not found (${errorMessage(error)})`;
		else if (timedOut) detail = `did not answer ${phase} within ${this.settings.startTimeoutMs} ms`;
		else if (this.hasExited) detail = `exited before answering ${phase}`;
		else detail = `failed during ${phase}: ${errorMessage(error)}`;
		return detail + this.stderrNote();
	}

	private callFailure(error: unknown, signal: AbortSignal): string {
		if (signal.aborted) return "the call was cancelled";
		if (this.closing !== undefined) return "the server was closed";
		if (this.hasExited) return `the server has exited${this.stderrNote()}`;
		return errorMessage(error);
	}

	private stderrNote(): string {
		const tail = this.stderrTail.trim();
		return tail === "" ? "" : `; its stderr ends with: ${tail}`;
	}

	private keepStderrTail(): void {
		const stderr = this.transport.stderr;
		if (!(stderr instanceof Readable)) return;
		stderr.setEncoding("utf8");
		// Always read it: an unread pipe fills up and blocks the server on its next log line.
		stderr.on("data", (chunk: string) => {
			this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
		});
		this.stderrEnded = new Promise((done) => stderr.once("end", done).once("close", done));
	}

	/** After a failed start: no graceful stdin shutdown, which would only add the SDK's 2 s wait. */
	private async abandon(): Promise<void> {
		const pid = this.transport.spawnedPid;
		if (pid !== undefined && !this.hasExited) signal(pid, "SIGTERM");
		await this.close();
		// The last lines a dying server writes are the ones its start error should quote.
		await Promise.race([this.stderrEnded, delay(STDERR_DRAIN_MS, undefined, { ref: false })]);
	}

	private async shutdown(): Promise<void> {
		await this.client.close();
		const pid = this.transport.spawnedPid;
		if (pid === undefined) return;
		// The SDK does not wait after its final SIGKILL; "gone" is the contract here.
		const deadline = Date.now() + EXIT_WAIT_MS;
		while (!this.hasExited && isAlive(pid) && Date.now() < deadline) await delay(EXIT_POLL_MS);
	}
}

/** Spawning reports both a missing command and a missing cwd as ENOENT. */
function isNotFound(error: unknown): boolean {
	return error instanceof Error && (error as NodeJS.ErrnoException).code === "ENOENT";
}

/** Signals a process of ours that may have just exited; a missing process is not an error. */
function signal(pid: number, name: NodeJS.Signals): void {
	try {
		process.kill(pid, name);
	} catch {
		// Already gone.
	}
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		// ESRCH, or EPERM for a reused pid that is not ours: our process is gone either way.
		return false;
	}
}
