import { randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { type AgentConfig, defaultModelFromEnv, loadProjectConfig } from "../config/project-config.js";
import { loadSystemConfig, omniloopHome, type SystemConfig, type SystemConfigInput } from "../config/system-config.js";
import { emptyUsage } from "../messages/constructors.js";
import type { ModelMessage } from "../messages/omni-message.js";
import type { ModelAdapter } from "../model/model-adapter.js";
import { TimedModel } from "../model/timeouts.js";
import type { ApprovalRules } from "../tools/approval-policy.js";
import type { Tool } from "../tools/tool.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import { latestTraceNumber, sessionDir, traceFileName } from "../trace/trace-files.js";
import type { TraceHeader } from "../trace/trace-header.js";
import { readTrace } from "../trace/trace-reader.js";
import { TraceWriter } from "../trace/trace-writer.js";
import { Session } from "./context-engine.js";
import { SessionNotFoundError } from "./errors.js";
import type { PairingRepairHook, SessionState } from "./loop-types.js";
import { loadModel, type ModelSource } from "./model-source.js";
import { rebuildFromTrace } from "./resume.js";

export interface AgentOptions {
	agentId: string;
	/** The model every Session of this agent uses; without it the model comes from `omniloop.yaml`. */
	model?: ModelAdapter;
	/** The host's own tools, added to the agent's. */
	tools?: readonly Tool[];
	/** The system prompt (overrides the agent's `system` in `omniloop.yaml`). */
	system?: string;
	/** Approval rules per tool name (`"*"` for all), over the config's; default: read-only allowed, the rest ask. */
	approval?: ApprovalRules;
	/** Where `omniloop.yaml` is read (default: the current directory). */
	configDir?: string;
	/** The omniloop home: `system_config.yaml` and `sessions/` (default `$OMNILOOP_HOME` or `~/.omniloop`). */
	home?: string;
	/** Overrides for `system_config.yaml`, key by key. */
	settings?: SystemConfigInput;
	/** The environment `${ENV}` references and default keys are read from (default `process.env`). */
	env?: NodeJS.ProcessEnv;
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

/**
 * Makes an agent. With `model` given, no config file is needed. Otherwise the agent and its model
 * come from `omniloop.yaml`, or — with no config file at all — from OPENAI_API_KEY or
 * ANTHROPIC_API_KEY.
 */
export async function createAgent(options: AgentOptions): Promise<Agent> {
	if (typeof options.agentId !== "string" || options.agentId === "") {
		throw new AgentConfigError("createAgent: agentId must be a non-empty string");
	}
	const env = options.env ?? process.env;
	const configDir = resolve(options.configDir ?? process.cwd());
	const { source, agentConfig } = agentDefinition(options, configDir, env);
	const home = resolve(options.home ?? omniloopHome(env));
	const config = loadSystemConfig(home, options.settings);
	const tools = new ToolRegistry(selectTools(options.tools ?? [], agentConfig?.tools, options.agentId));
	const approval: ApprovalRules = { ...agentConfig?.approval, ...options.approval };
	const system = options.system ?? agentConfig?.system;

	/** The Session's state around its Trace; the model is built now, as the Session loads. */
	const state = (header: TraceHeader, trace: TraceWriter, source: ModelSource) => ({
		traceHeader: header,
		traceDir: sessionDir(home, header.sessionId),
		sessionId: header.sessionId,
		agentId: options.agentId,
		workspaceDir: header.workspaceDir,
		// Every wait on the model has a limit: a stall is a timeout, and the engine reconnects.
		model: new TimedModel(loadModel(source, env), config.timeouts),
		system,
		tools,
		approval,
		config,
		trace,
		onPairingRepair: options.onPairingRepair,
		depth: 0,
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
			const model = loadModel(source, env);
			const header: TraceHeader = {
				type: "trace_header",
				version: 1,
				sessionId,
				agentId: options.agentId,
				file: 1,
				createdAt: new Date().toISOString(),
				workspaceDir: dir,
				model: model.id,
				...(source.kind === "given" ? {} : { modelRef: source.ref }),
				turnsBefore: 0,
			};
			const trace = TraceWriter.create(join(sessionDir(home, sessionId), traceFileName(1)), header, {
				durable: config.trace.durable,
			});
			const sessionState: SessionState = {
				...state(header, trace, { kind: "given", adapter: model }),
				context: [],
				carryOver: [],
				callIds: new Set(),
				seq: 0,
				usage: emptyUsage(),
				turnCount: 0,
				lastRequestTotal: 0,
				compaction: { turnsSince: 0, failures: 0, blockedUntilTurn: 0, justCompacted: false },
			};
			return new Session(sessionState);
		},
		async resumeSession(sessionId) {
			const dir = sessionDir(home, sessionId);
			const latest = existsSync(dir) ? latestTraceNumber(dir) : 0;
			if (latest === 0) throw new SessionNotFoundError(sessionId, dir);
			const path = join(dir, traceFileName(latest));
			const { header, messages } = readTrace(path);
			const rebuilt = rebuildFromTrace(messages);
			// The model reference recorded when the Session was made, with today's credentials.
			const resumedSource: ModelSource =
				source.kind === "given" || header.modelRef === undefined
					? source
					: header.modelRef === "default" && source.kind === "env-default"
						? source
						: { kind: "config", ref: header.modelRef, configDir };
			const sessionState: SessionState = {
				...state(header, TraceWriter.append(path, { durable: config.trace.durable }), resumedSource),
				context: rebuilt.context,
				carryOver: [],
				callIds: callIdsOfEarlierFiles(dir, latest, rebuilt.context),
				seq: rebuilt.seq,
				usage: rebuilt.usage,
				turnCount: header.turnsBefore + rebuilt.turns,
				lastRequestTotal: rebuilt.lastRequestTotal,
				compaction: {
					turnsSince: rebuilt.turns,
					failures: 0,
					blockedUntilTurn: 0,
					justCompacted: rebuilt.turns === 0 && header.file > 1,
				},
			};
			return new Session(sessionState);
		},
	};
}

/**
 * Every call id the Session has used, in all its Trace files: a model that repeats an id after a
 * compaction and a resume must still not run a tool twice.
 */
function callIdsOfEarlierFiles(dir: string, latest: number, context: readonly ModelMessage[]): Set<string> {
	const ids = new Set(context.flatMap((m) => (m.type === "tool_call" ? [m.callId] : [])));
	for (let n = 1; n < latest; n++) {
		const path = join(dir, traceFileName(n));
		if (!existsSync(path)) continue;
		for (const message of readTrace(path).messages) if (message.type === "tool_call") ids.add(message.callId);
	}
	return ids;
}

/** Where the agent's model comes from, and its config entry if `omniloop.yaml` defines it. */
function agentDefinition(
	options: AgentOptions,
	configDir: string,
	env: NodeJS.ProcessEnv,
): { source: ModelSource; agentConfig: AgentConfig | undefined } {
	const { config, file } = loadProjectConfig(configDir);
	const agentConfig = config.agents[options.agentId];
	if (options.model !== undefined) return { source: { kind: "given", adapter: options.model }, agentConfig };
	if (agentConfig !== undefined) return { source: { kind: "config", ref: agentConfig.model, configDir }, agentConfig };
	if (file === undefined && defaultModelFromEnv(env) !== undefined) {
		return { source: { kind: "env-default", ref: "default" }, agentConfig: undefined };
	}
	const defined = Object.keys(config.agents);
	throw new AgentConfigError(
		file === undefined
			? `createAgent(${options.agentId}): no model. Pass \`model\` to createAgent, write an omniloop.yaml in ${configDir}, or set OPENAI_API_KEY or ANTHROPIC_API_KEY.`
			: `createAgent(${options.agentId}): ${file} defines no agent "${options.agentId}" (agents: ${defined.length ? defined.join(", ") : "none"}).`,
	);
}

/** The host's tools, narrowed to the agent's `tools` list when the config gives one. */
function selectTools(available: readonly Tool[], names: readonly string[] | undefined, agentId: string): Tool[] {
	if (names === undefined) return [...available];
	const byName = new Map(available.map((t) => [t.name, t]));
	return names.map((name) => {
		const found = byName.get(name);
		if (found === undefined) {
			throw new AgentConfigError(
				`agent ${agentId}: tool "${name}" is not available (available: ${[...byName.keys()].join(", ") || "none"})`,
			);
		}
		return found;
	});
}
