import { z } from "zod";
import type { JsonObject, OmniMessage, ToolCall, Usage } from "../messages/omni-message.js";
import type { ToolSpec } from "../model/model-adapter.js";
import type { CommandSandbox } from "./sandbox/command-sandbox.js";

/** A person's answer to whether a tool call may run. */
export type ApprovalAnswer = "allow" | "deny";

/**
 * Who decided a call (`approval_decision.by`): the approval policy, a person through the host's
 * `approve`, a person's earlier "always" for the tool in this Session (AlwaysAllowed: an allow,
 * nobody asked), or nobody in time (a host's deadline for a person's answer passed: a deny).
 */
export type DecidedBy = "policy" | "user" | "always" | "timeout";

/** The host's answer: a person's decision, or `{ decision: "deny", by: "timeout" }` when nobody answered in time. */
export type ApproveResult = ApprovalAnswer | { decision: "deny"; by: "timeout" };

/**
 * Asks the host whether a tool call may run. Called once per call that the approval policy says
 * to ask about, one at a time, in call order. `signal` fires if the Task is aborted while waiting;
 * the answer is then ignored (an abort, not a deny). A rejected promise counts as a deny.
 */
export type ApproveFn = (call: ToolCall, options: ApproveOptions) => Promise<ApproveResult>;

/** What `approve` is told besides the call: the abort signal, and the question's correlation id. */
export interface ApproveOptions {
	/** Fires if the Task is aborted while the person decides: the question is void, not denied. */
	signal: AbortSignal;
	/**
	 * The id of the `confirmation_required` event emitted just before this question; the
	 * `approval_decision` that answers it carries the same id (a server's reply endpoint uses it).
	 */
	correlationId: string;
	/**
	 * Set when the call would run without its OS sandbox (see ConfirmationRequired.unsandboxed): a
	 * host must put it to a person and never answer it by itself (no `--yes`, no "always").
	 */
	unsandboxed?: string;
}

/**
 * What a tool that runs an agent of its own (a subagent) needs from the Task that called it.
 * Contract: `forward` and `addUsage` may be called only while the tool's call is running.
 */
export interface TaskHooks {
	/** Emits a nested Session's message into this Task's stream (already tagged with its origin). */
	forward(message: OmniMessage): void;
	/** Settles once the host has read a forwarded message (so a person is asked about a call they have seen). */
	delivered(message: OmniMessage): Promise<void>;
	/** This Task's approve function; undefined when calls that need approval are denied. */
	readonly approve: ApproveFn | undefined;
	/** Adds a nested Session's usage to this Task's and this Session's. */
	addUsage(usage: Usage): void;
	/** How deep the Session running the tool is nested: 0 for a top-level Session. */
	readonly depth: number;
	/** The Session running the tool. */
	readonly sessionId: string;
	readonly agentId: string;
}

/**
 * Hooks for a tool run outside any Task (a host calling a tool itself, a test): nothing is
 * forwarded, calls that need approval are denied, usage goes nowhere.
 */
export function detachedTaskHooks(): TaskHooks {
	return {
		forward: () => {},
		delivered: () => Promise.resolve(),
		approve: undefined,
		addUsage: () => {},
		depth: 0,
		sessionId: "detached",
		agentId: "detached",
	};
}

/** What a tool's `execute` gets besides its arguments. */
export interface ToolContext {
	/** Fires when the Task is aborted or the tool's time is up; a tool should stop promptly. */
	signal: AbortSignal;
	callId: string;
	/**
	 * The Session's workspace: file tools never reach outside it. Its real path, fixed when the
	 * Session was made: tools never resolve it again, so a folder swapped for a link
	 * later leads nowhere.
	 */
	workspaceDir: string;
	/**
	 * Real paths the built-in file tools never read, list or write, whatever the workspace: the
	 * omniloop home (the server's token, the store, every Session's Trace) and the hosts' secrets
	 * files. A walk (glob, grep) or a listing skips them. None when omitted.
	 */
	deniedPaths?: readonly string[];
	/**
	 * Real paths the built-in file tools may read but never write: the project's `omniloop.yaml`,
	 * which chooses the models, MCP servers and approvals of the next Session (a tool that rewrote
	 * it would choose what runs next, unasked). None when omitted.
	 */
	readOnlyPaths?: readonly string[];
	/** The Session's own folder (beside its Trace): where a tool keeps what does not fit an output. */
	sessionDir: string;
	/** Reports progress; each call becomes a `tool_progress` event. Must not be called after execute settles. */
	progress(text: string): void;
	/**
	 * Ends the Task once this turn's calls are all done ("a tool ended execution": done reason
	 * `model_stop`). The turn's other calls still run to their outputs, and every output joins the
	 * model context as usual; the model is just not asked again. Steering a person sent meanwhile
	 * is answered first: the Task then goes on, as it does when the model stops. Has no effect once
	 * `execute` has settled.
	 */
	endTask(): void;
	task: TaskHooks;
	/** How a command the tool starts must run: its filtered environment, and the OS sandbox (docs/sandbox.md). */
	sandbox: CommandSandbox;
}

/** What `execute` may return: text for the model, or JSON that is serialized for it. */
export type ToolResult = string | JsonObject;

/** A tool's arguments checked against its parameters: the value, or what is wrong with them. */
export type ArgumentCheck<Args> = { ok: true; value: Args } | { ok: false; problems: string };

/**
 * A tool the model can call.
 *
 * Contract for `execute`: it gets arguments `checkArguments` accepted; it may throw (the message
 * becomes an `error` output the model sees; tool errors are never retried); it should honour
 * `ctx.signal`, but the engine never waits on a tool after an abort.
 */
export interface Tool<Args = unknown> {
	readonly name: string;
	readonly description: string;
	/**
	 * JSON Schema of the arguments object, as the model sees it. Read when a Session is set up
	 * with the tool: a `tool()` whose zod schema JSON Schema cannot express fails there, by name.
	 */
	readonly inputSchema: JsonObject;
	/** Read-only tools are allowed by the default approval policy and may start while the model streams. */
	readonly readOnly: boolean;
	/**
	 * True for a tool that runs commands through `ctx.sandbox`. Where the agent's sandbox is
	 * configured but unavailable, each of its calls needs a person's approval, whatever the policy.
	 */
	readonly sandboxed?: boolean;
	/**
	 * Whether a call may change the workspace's files, so the turn checkpoints them first
	 * (docs/checkpoints.md); absent: when not read-only. A subagent is read-only for approvals
	 * (its own calls are asked about) but its tools may write.
	 */
	readonly changesFiles?: boolean;
	/** Checks the parsed arguments; problems are worded for the model. Must not throw. */
	checkArguments(raw: unknown): ArgumentCheck<Args>;
	execute(args: Args, ctx: ToolContext): Promise<ToolResult>;
}

/** What `tool()` takes: a name, a description, zod parameters and `execute`. */
export interface ToolDefinition<Shape extends z.ZodRawShape> {
	name: string;
	description: string;
	parameters: z.ZodObject<Shape>;
	readOnly?: boolean;
	/** See Tool.sandboxed. */
	sandboxed?: boolean;
	execute(args: z.infer<z.ZodObject<Shape>>, ctx: ToolContext): Promise<ToolResult>;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Throws a TypeError when `name` is not one every provider accepts. */
export function checkToolName(name: string): void {
	if (!TOOL_NAME.test(name)) throw new TypeError(`tool name "${name}" must match ${TOOL_NAME} (the providers' rule)`);
}

/** Makes a tool from a zod object schema. Throws a TypeError naming the problem for a bad definition. */
export function tool<Shape extends z.ZodRawShape>(
	definition: ToolDefinition<Shape>,
): Tool<z.infer<z.ZodObject<Shape>>> {
	checkToolName(definition.name);
	const parameters = definition.parameters;
	if (!(parameters instanceof z.ZodObject)) {
		throw new TypeError(`tool "${definition.name}": parameters must be a zod object schema (z.object({...}))`);
	}
	let schema: JsonObject | undefined;
	return {
		name: definition.name,
		description: definition.description,
		// Made when a Session first needs the tool's spec, not at definition: converting a schema
		// compiles much of zod, which every import of core (seven built-in tools) would pay for.
		get inputSchema(): JsonObject {
			schema ??= jsonSchemaOf(definition.name, parameters);
			return schema;
		},
		readOnly: definition.readOnly ?? false,
		...(definition.sandboxed === true ? { sandboxed: true } : {}),
		checkArguments(raw) {
			const parsed = parameters.safeParse(raw);
			if (parsed.success) return { ok: true, value: parsed.data };
			const problems = parsed.error.issues
				.map((issue) => `${issue.path.length ? issue.path.join(".") : "(arguments)"}: ${issue.message}`)
				.join("; ");
			return { ok: false, problems };
		},
		execute: definition.execute,
	};
}

function jsonSchemaOf(name: string, parameters: z.ZodObject): JsonObject {
	let schema: JsonObject;
	try {
		schema = z.toJSONSchema(parameters, { io: "input" }) as JsonObject;
	} catch (error) {
		throw new TypeError(
			`tool "${name}": its parameters cannot be sent to a model as JSON Schema (${(error as Error).message})`,
		);
	}
	delete schema.$schema;
	return schema;
}

/** The tool as the model sees it: name, description and the JSON Schema of its arguments. */
export function toolSpec(t: Tool): ToolSpec {
	return { name: t.name, description: t.description, inputSchema: t.inputSchema };
}
