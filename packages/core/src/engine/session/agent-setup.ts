import type { SystemConfig } from "../../config/system-config.js";
import type { ModelAdapter } from "../../model/model-adapter.js";
import type { Tool } from "../../tools/tool.js";
import type { ActionGuard, PairingRepairHook, TraceShipHook } from "../loop-types.js";
import type { AgentDefinition } from "./agent-definition.js";

/** Everything an agent needs to open Sessions: its definition and its project's settings. */
export interface AgentSetup {
	readonly definition: AgentDefinition;
	readonly config: SystemConfig;
	readonly env: NodeJS.ProcessEnv;
	readonly configDir: string;
	/** The host's own tools: every Session of the agent (and its subagents) gets them. */
	readonly hostTools: readonly Tool[];
	/** Whether the built-in workspace tools are offered. */
	readonly builtins: boolean;
	/** Adapters standing in for `omniloop.yaml` models, by model name. */
	readonly models: Readonly<Record<string, ModelAdapter>>;
	readonly onPairingRepair: PairingRepairHook | undefined;
	readonly shipTrace: TraceShipHook | undefined;
	readonly guard: ActionGuard | undefined;
	/** Another agent of the same project, for subagents. */
	define(agentId: string): AgentDefinition;
}

/** Where a new Session lives. */
export interface SessionPlace {
	workspaceDir: string;
	/** The Session's folder: its Trace files, and what its tools keep. */
	traceDir: string;
	/** 0 for a top-level Session; a subagent's is its parent's plus one. */
	depth: number;
	sessionId?: string;
}
