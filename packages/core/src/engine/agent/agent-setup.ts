import type { SystemConfig } from "../../config/system-config.js";
import type { ModelAdapter } from "../../model/model-adapter.js";
import type { AlwaysAllowed } from "../../session-store/always-allowed.js";
import type { Tool } from "../../tools/tool.js";
import type { ActionGuard, PairingRepairHook, TraceShipHook } from "../loop-types.js";
import type { AgentDefinition } from "./agent-definition.js";

/** Everything an agent needs to open Sessions: its definition and its project's settings. */
export interface AgentSetup {
	readonly definition: AgentDefinition;
	readonly config: SystemConfig;
	readonly env: NodeJS.ProcessEnv;
	readonly configDir: string;
	/** The omniloop home: the person's AGENTS.md, the checkpoint store; hidden from the shell's commands. */
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
	/** Credential values redacted from everything a Session emits or writes (read at each Task's start). */
	readonly secrets: () => readonly string[];
	/** Paths the built-in file tools never touch: the omniloop home and the host's (see ToolContext.deniedPaths). */
	readonly deniedPaths: readonly string[];
	/**
	 * Paths no tool or command may change, though they may read them: the project's omniloop.yaml
	 * (see ToolContext.readOnlyPaths), whether it exists yet or not.
	 */
	readonly readOnlyPaths: readonly string[];
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
	/**
	 * The grants of the top-level Session, for a subagent: its calls go to the same person through
	 * the parent's `approve`, so an "always" given there holds for them too. Default: the folder's own.
	 */
	alwaysAllowed?: AlwaysAllowed;
	/** Where the AGENTS.md walk starts (default: the enclosing git repository's top, else the workspace). */
	workspaceRoot?: string | undefined;
}
