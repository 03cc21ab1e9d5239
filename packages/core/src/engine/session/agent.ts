import { randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { loadProjectConfig } from "../../config/project-config.js";
import {
	loadSystemConfig,
	omniloopHome,
	type SystemConfig,
	type SystemConfigInput,
} from "../../config/system-config.js";
import type { ModelAdapter } from "../../model/model-adapter.js";
import type { ApprovalRules } from "../../tools/approval-policy.js";
import type { Tool } from "../../tools/tool.js";
import { sessionDir } from "../../trace/trace-files.js";
import type { ActionGuard, PairingRepairHook, TraceShipHook } from "../loop-types.js";
import { AgentConfigError, defineAgent } from "./agent-definition.js";
import type { AgentSetup } from "./agent-setup.js";
import type { Session } from "./context-engine.js";
import { openNewSession, openResumedSession } from "./session-factory.js";

export { AgentConfigError, type AgentConfigProblem } from "./agent-definition.js";

export interface AgentOptions {
	agentId: string;
	/** The model every Session of this agent uses; without it the model comes from `omniloop.yaml`. */
	model?: ModelAdapter;
	/** A model named in `omniloop.yaml` to use instead of the agent's own (e.g. the CLI's --model). */
	modelName?: string;
	/** The host's own tools, added to the agent's. */
	tools?: readonly Tool[];
	/** Whether the built-in workspace tools are offered (default true; an agent's `tools` list narrows them). */
	builtins?: boolean;
	/** Adapters to use for models named in `omniloop.yaml` (tests, embedding); the config's provider is then not called. */
	models?: Readonly<Record<string, ModelAdapter>>;
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
	/** For hosts that copy the Trace elsewhere: see TraceShipHook. */
	shipTrace?: TraceShipHook;
	/** For hosts whose right to run a Session can end: see ActionGuard. */
	guard?: ActionGuard;
}

export interface Agent {
	readonly agentId: string;
	readonly config: SystemConfig;
	readonly home: string;
	/** A new Session in `workspaceDir`: its model, MCP servers and tools load now. */
	createSession(options: { workspaceDir: string }): Promise<Session>;
	/** Rebuilds a Session from its latest Trace file; it goes on appending to that file. */
	resumeSession(sessionId: string): Promise<Session>;
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
	const project = loadProjectConfig(configDir);
	const home = resolve(options.home ?? omniloopHome(env));
	const setup: AgentSetup = {
		definition: defineAgent(options.agentId, project, configDir, env, options),
		config: loadSystemConfig(home, options.settings),
		env,
		configDir,
		hostTools: options.tools ?? [],
		builtins: options.builtins ?? true,
		models: options.models ?? {},
		onPairingRepair: options.onPairingRepair,
		shipTrace: options.shipTrace,
		guard: options.guard,
		// Subagents are agents of the same project, on their own configured models.
		define: (agentId) => defineAgent(agentId, loadProjectConfig(configDir), configDir, env),
	};
	return {
		agentId: options.agentId,
		config: setup.config,
		home,
		async createSession({ workspaceDir }) {
			const dir = resolve(workspaceDir);
			if (!existsSync(dir) || !statSync(dir).isDirectory()) {
				throw new AgentConfigError(`createSession: workspaceDir ${dir} is not a directory`);
			}
			const sessionId = randomUUID();
			return openNewSession(setup, { sessionId, workspaceDir: dir, traceDir: sessionDir(home, sessionId), depth: 0 });
		},
		resumeSession(sessionId) {
			return openResumedSession(setup, sessionDir(home, sessionId), sessionId);
		},
	};
}
