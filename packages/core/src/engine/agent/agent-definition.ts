import { type AgentConfig, defaultModelFromEnv, type LoadedProjectConfig } from "../../config/project-config.js";
import type { ModelAdapter } from "../../model/model-adapter.js";
import { type ApprovalRules, withMcpToolNames } from "../../tools/approval-policy.js";
import type { ShellPolicy } from "../../tools/sandbox/command-sandbox.js";
import { DEFAULT_SANDBOX_MODE, type SandboxMode } from "../../tools/sandbox/sandbox-mode.js";
import type { ModelSource } from "./model-source.js";

/** An agent as configured: where its model comes from, its prompt, its tools, its approvals. */
export interface AgentDefinition {
	readonly agentId: string;
	readonly source: ModelSource;
	readonly system: string | undefined;
	/** The tools it may use by name (built-ins, MCP tools, subagents); undefined: all of them. */
	readonly toolNames: readonly string[] | undefined;
	readonly approval: ApprovalRules;
	/** How its commands run: the sandbox and the environment they see (docs/sandbox.md). */
	readonly shell: ShellPolicy;
}

/**
 * What is wrong with an agent's setup. Hosts branch on `problem`, never on the message:
 * `no_model` means nothing names a model at all (no `model` given, no omniloop.yaml, no provider
 * key), which a host may answer with the offline demo; every other problem stands.
 */
export type AgentConfigProblem = "no_model" | "unknown_agent" | "unknown_model" | "invalid";

/** An agent cannot be set up as configured; `problem` says which way (hosts branch on it). */
export class AgentConfigError extends Error {
	override readonly name = "AgentConfigError";
	constructor(
		message: string,
		readonly problem: AgentConfigProblem = "invalid",
	) {
		super(message);
	}
}

export interface DefinitionOverrides {
	model?: ModelAdapter | undefined;
	/** A model of `omniloop.yaml` by name, in place of the agent's. */
	modelName?: string | undefined;
	system?: string | undefined;
	approval?: ApprovalRules | undefined;
	/** In place of the agent's `sandbox`. */
	sandbox?: SandboxMode | undefined;
}

/**
 * The definition of `agentId`: a given model wins; otherwise `omniloop.yaml`'s agent, or — with no
 * config file at all — the default model of whichever provider key is set.
 */
export function defineAgent(
	agentId: string,
	project: LoadedProjectConfig,
	configDir: string,
	env: NodeJS.ProcessEnv,
	overrides: DefinitionOverrides = {},
): AgentDefinition {
	const agentConfig: AgentConfig | undefined = project.config.agents[agentId];
	const base = {
		agentId,
		system: overrides.system ?? agentConfig?.system,
		toolNames: agentConfig?.tools,
		approval: withMcpToolNames({ ...agentConfig?.approval, ...overrides.approval }, Object.keys(project.config.mcp)),
		shell: shellPolicy(agentConfig, overrides.sandbox),
	};
	if (overrides.model !== undefined) return { ...base, source: { kind: "given", adapter: overrides.model } };
	if (overrides.modelName !== undefined) {
		if (project.config.models[overrides.modelName] === undefined) {
			const known = Object.keys(project.config.models);
			throw new AgentConfigError(
				`model "${overrides.modelName}" is not defined under models in ${project.file ?? `${configDir}/omniloop.yaml`} (models: ${known.join(", ") || "none"})`,
				"unknown_model",
			);
		}
		return { ...base, source: { kind: "config", ref: overrides.modelName, configDir, chosen: true } };
	}
	if (agentConfig !== undefined) return { ...base, source: { kind: "config", ref: agentConfig.model, configDir } };
	if (project.file === undefined && defaultModelFromEnv(env) !== undefined) {
		return { ...base, source: { kind: "env-default", ref: "default" } };
	}
	if (project.file === undefined) {
		throw new AgentConfigError(
			`createAgent(${agentId}): no model. Pass \`model\` to createAgent, write an omniloop.yaml in ${configDir}, or set OPENAI_API_KEY or ANTHROPIC_API_KEY.`,
			"no_model",
		);
	}
	const defined = Object.keys(project.config.agents);
	throw new AgentConfigError(
		`createAgent(${agentId}): ${project.file} defines no agent "${agentId}" (agents: ${defined.length ? defined.join(", ") : "none"}).`,
		"unknown_agent",
	);
}

function shellPolicy(agent: AgentConfig | undefined, sandbox: SandboxMode | undefined): ShellPolicy {
	return {
		sandbox: sandbox ?? agent?.sandbox ?? DEFAULT_SANDBOX_MODE,
		network: agent?.network ?? [],
		env: { include: agent?.shell?.env?.include ?? [], exclude: agent?.shell?.env?.exclude ?? [] },
	};
}
