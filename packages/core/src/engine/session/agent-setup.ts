import type { SystemConfig } from "../../config/system-config.js";
import type { ModelAdapter } from "../../model/model-adapter.js";
import type { Tool } from "../../tools/tool.js";
import type { PairingRepairHook, TraceShipHook } from "../loop-types.js";
import type { AgentDefinition } from "./agent-definition.js";

/** Everything an agent needs to open Sessions: its definition and its project's settings. */
export interface AgentSetup {
	readonly definition: AgentDefinition;
	readonly config: SystemConfig;
	readonly env: NodeJS.ProcessEnv;
	readonly configDir: string;
	/** The omniloop home: the person's AGENTS.md, the checkpoint store. */
	readonly home: string;
	/** `instructions.maxBytes` of omniloop.yaml. */
	readonly instructionsMaxBytes: number;
	/** `checkpoints` of omniloop.yaml; undefined when turned off. */
	readonly checkpoints: { maxFileBytes: number } | undefined;
	/** The host's own tools: every Session of the agent (and its subagents) gets them. */
	readonly hostTools: readonly Tool[];
	/** Whether the built-in workspace tools are offered. */
	readonly builtins: boolean;
	/** Adapters standing in for `omniloop.yaml` models, by model name. */
	readonly models: Readonly<Record<string, ModelAdapter>>;
	readonly onPairingRepair: PairingRepairHook | undefined;
	readonly shipTrace: TraceShipHook | undefined;
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
	/** Where the AGENTS.md walk starts (default: the enclosing git repository's top, else the workspace). */
	workspaceRoot?: string | undefined;
}
