import { randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadSystemConfig, omniloopHome, type SystemConfig, type SystemConfigInput } from "../config/system-config.js";
import { emptyUsage } from "../messages/constructors.js";
import type { ModelAdapter } from "../model/model-adapter.js";
import { TimedModel } from "../model/timeouts.js";
import type { ApprovalRules } from "../tools/approval-policy.js";
import type { Tool } from "../tools/tool.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import { latestTraceNumber, sessionDir, traceFileName } from "../trace/trace-files.js";
import { readTrace } from "../trace/trace-reader.js";
import { TraceWriter } from "../trace/trace-writer.js";
import { Session } from "./context-engine.js";
import { SessionNotFoundError } from "./errors.js";
import type { PairingRepairHook, SessionState } from "./loop-types.js";
import { rebuildFromTrace } from "./resume.js";

export interface AgentOptions {
	agentId: string;
	/** The model every Session of this agent uses. */
	model?: ModelAdapter;
	/** The host's own tools. */
	tools?: readonly Tool[];
	/** The system prompt. */
	system?: string;
	/** Approval rules per tool name (`"*"` for all); default: read-only tools allowed, the rest ask. */
	approval?: ApprovalRules;
	/** Where `omniloop.yaml` is read (default: the current directory). */
	configDir?: string;
	/** The omniloop home: `system_config.yaml` and `sessions/` (default `$OMNILOOP_HOME` or `~/.omniloop`). */
	home?: string;
	/** Overrides for `system_config.yaml`, key by key. */
	settings?: SystemConfigInput;
	/** Diagnostic: called when the pairing check had to repair a request (a bug upstream). */
	onPairingRepair?: PairingRepairHook;
}

export interface Agent {
	readonly agentId: string;
	readonly config: SystemConfig;
	readonly home: string;
	createSession(options: { workspaceDir: string }): Promise<Session>;
	/** Rebuilds a Session from its latest Trace file; it goes on appending to that file. */
	resumeSession(sessionId: string): Promise<Session>;
}

export class AgentConfigError extends Error {
	override readonly name = "AgentConfigError";
}

/** Makes an agent. With `model` given, no config file is needed. */
export async function createAgent(options: AgentOptions): Promise<Agent> {
	if (typeof options.agentId !== "string" || options.agentId === "") {
		throw new AgentConfigError("createAgent: agentId must be a non-empty string");
	}
	const given = options.model;
	if (given === undefined) {
		throw new AgentConfigError(
			`createAgent(${options.agentId}): no model. Pass \`model\` (a ModelAdapter) to createAgent.`,
		);
	}
	const home = resolve(options.home ?? omniloopHome());
	const config = loadSystemConfig(home, options.settings);
	// Every wait on the model has a limit: a stall is a timeout, and the engine reconnects.
	const model = new TimedModel(given, config.timeouts);
	const tools = new ToolRegistry(options.tools ?? []);
	const approval = options.approval ?? {};

	const baseState = (sessionId: string, workspaceDir: string, trace: TraceWriter) => ({
		sessionId,
		agentId: options.agentId,
		workspaceDir,
		model,
		system: options.system,
		tools,
		approval,
		config,
		trace,
		onPairingRepair: options.onPairingRepair,
	});

	return {
		agentId: options.agentId,
		config,
		home,
		async createSession({ workspaceDir }) {
			const dir = resolve(workspaceDir);
			if (!existsSync(dir) || !statSync(dir).isDirectory()) {
				throw new AgentConfigError(`createSession: workspaceDir ${dir} is not a directory`);
			}
			const sessionId = randomUUID();
			const trace = TraceWriter.create(
				join(sessionDir(home, sessionId), traceFileName(1)),
				{
					type: "trace_header",
					version: 1,
					sessionId,
					agentId: options.agentId,
					file: 1,
					createdAt: new Date().toISOString(),
					workspaceDir: dir,
					model: model.id,
					turnsBefore: 0,
				},
				{ durable: config.trace.durable },
			);
			const state: SessionState = {
				...baseState(sessionId, dir, trace),
				context: [],
				carryOver: [],
				callIds: new Set(),
				seq: 0,
				usage: emptyUsage(),
				turnCount: 0,
			};
			return new Session(state);
		},
		async resumeSession(sessionId) {
			const dir = sessionDir(home, sessionId);
			const latest = existsSync(dir) ? latestTraceNumber(dir) : 0;
			if (latest === 0) throw new SessionNotFoundError(sessionId, dir);
			const path = join(dir, traceFileName(latest));
			const { header, messages } = readTrace(path);
			const rebuilt = rebuildFromTrace(messages);
			const state: SessionState = {
				...baseState(sessionId, header.workspaceDir, TraceWriter.append(path, { durable: config.trace.durable })),
				context: rebuilt.context,
				carryOver: [],
				callIds: new Set(rebuilt.context.flatMap((m) => (m.type === "tool_call" ? [m.callId] : []))),
				seq: rebuilt.seq,
				usage: rebuilt.usage,
				turnCount: header.turnsBefore + rebuilt.turns,
			};
			return new Session(state);
		},
	};
}
