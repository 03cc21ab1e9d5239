import {
	type Agent,
	AgentConfigError,
	createAgent,
	DemoModel,
	type ModelAdapter,
	type SandboxMode,
	type SandboxState,
	type SystemConfigInput,
	type Tool,
} from "@omniloop/core";
import {
	type ActionGuard,
	bubblewrapPath,
	DEFAULT_SANDBOX_MODE,
	type ProjectConfigFile,
	type SandboxSupport,
	sandboxState,
	sandboxSupport,
	type TraceShipHook,
} from "@omniloop/core/internal";
import { HttpError } from "../errors.js";

export interface AgentPoolOptions {
	configDir: string;
	/** The project's omniloop.yaml in `configDir`, read per request (`GET /agents`). */
	project: ProjectConfigFile;
	home: string;
	env: NodeJS.ProcessEnv;
	/** One model for every agent (embedding, tests). */
	model?: ModelAdapter | undefined;
	/** Adapters standing in for models of omniloop.yaml, by name. */
	models?: Readonly<Record<string, ModelAdapter>> | undefined;
	settings?: SystemConfigInput | undefined;
	/** The host's own tools, added to every agent's. */
	tools?: readonly Tool[] | undefined;
	/** With Postgres: the Trace goes to the database before tools start and people are asked. */
	shipTrace?: TraceShipHook | undefined;
	/** Credential values core does not know by their names (stored ones, the token): redacted from every message. */
	secrets?: (() => readonly string[]) | undefined;
	/** The server's secrets besides the home (a SQLite store elsewhere): the file tools never touch them. */
	deniedPaths?: readonly string[] | undefined;
	/** With Postgres: no model request or tool start once this process lost the Session's lease. */
	guard?: ActionGuard | undefined;
}

export const DEFAULT_AGENT = "default_agent";

export const DEMO_NOTICE =
	"No model is configured (no omniloop.yaml model, no OPENAI_API_KEY or ANTHROPIC_API_KEY): serving the offline demo, a scripted model that calls no provider.";

/**
 * The agents Sessions are made with, one per agent id, made once. With no model configured at
 * all, every agent is the offline demo's, and `demo` says so.
 */
export class AgentPool {
	private readonly agents = new Map<string, Promise<Agent>>();
	private demoModel: ModelAdapter | undefined;

	private constructor(
		private readonly options: AgentPoolOptions,
		/** Whether this machine can sandbox the shell's commands (asked once, at start). */
		readonly sandboxSupport: SandboxSupport,
	) {}

	/** Makes the pool and its default agent, which decides whether this is the demo. */
	static async open(options: AgentPoolOptions): Promise<AgentPool> {
		const pool = new AgentPool(options, await sandboxSupport(bubblewrapPath(options.env)));
		try {
			await pool.get(DEFAULT_AGENT);
		} catch (error) {
			if (
				!(error instanceof HttpError && error.cause instanceof AgentConfigError && error.cause.problem === "no_model")
			)
				throw error;
			pool.demoModel = new DemoModel();
			pool.agents.clear();
		}
		return pool;
	}

	get demo(): boolean {
		return this.demoModel !== undefined;
	}

	/**
	 * The agent `agentId`; with `modelName` (a model of omniloop.yaml a person chose for a Session,
	 * `PATCH /chat/sessions/:id { model }`), the same agent on that model: its Sessions load on it.
	 */
	get(agentId: string, modelName?: string): Promise<Agent> {
		const key = modelName === undefined ? agentId : `${agentId}\u0000${modelName}`;
		let agent = this.agents.get(key);
		if (agent === undefined) {
			const model = this.demoModel ?? this.options.model;
			agent = createAgent({
				agentId,
				...(modelName === undefined ? {} : { modelName }),
				configDir: this.options.configDir,
				home: this.options.home,
				env: this.options.env,
				...(model === undefined ? {} : { model }),
				...(this.options.models === undefined ? {} : { models: this.options.models }),
				...(this.options.settings === undefined ? {} : { settings: this.options.settings }),
				...(this.options.tools === undefined ? {} : { tools: this.options.tools }),
				...(this.options.shipTrace === undefined ? {} : { shipTrace: this.options.shipTrace }),
				...(this.options.deniedPaths === undefined ? {} : { deniedPaths: this.options.deniedPaths }),
				...(this.options.secrets === undefined ? {} : { secrets: this.options.secrets }),
				...(this.options.guard === undefined ? {} : { guard: this.options.guard }),
			}).catch((error: unknown) => {
				this.agents.delete(key);
				if (error instanceof AgentConfigError)
					throw new HttpError("not_found", `agent ${agentId}: ${error.message}`, { cause: error });
				throw error;
			});
			this.agents.set(key, agent);
		}
		return agent;
	}

	/** Throws not_found unless `agentId` is one of the configured agents (`GET /agents`). */
	check(agentId: string): void {
		const known = this.describe().agents.map((agent) => agent.id);
		if (!known.includes(agentId)) throw new HttpError("not_found", `agent ${agentId} (agents: ${known.join(", ")})`);
	}

	/**
	 * The models of omniloop.yaml a Session can be switched to, by name, each with the model id its
	 * Trace and usage rows record (an injected adapter's own id). None in the demo or with one
	 * model given for every agent.
	 */
	switchableModels(): { name: string; model: string }[] {
		if (this.demo || this.options.model !== undefined) return [];
		const { config } = this.options.project.load();
		return Object.entries(config.models).map(([name, model]) => ({
			name,
			model: this.options.models?.[name]?.id ?? `${model.provider}:${model.model}`,
		}));
	}

	/** The model id of configured model `name`; 400 `invalid_body` naming the configured ones when there is none. */
	switchableModel(name: string): { name: string; model: string } {
		const models = this.switchableModels();
		const found = models.find((model) => model.name === name);
		if (found !== undefined) return found;
		const known = models.map((model) => model.name).join(", ");
		throw new HttpError(
			"invalid_body",
			`model: "${name}" is not a configured model (models: ${known === "" ? "none; this server cannot switch models" : known})`,
		);
	}

	/** The configured agents, their models and their sandboxes, for `GET /agents`. */
	describe(): {
		agents: AgentDescription[];
		demo: boolean;
		notice?: string;
		models: { name: string; model: string }[];
	} {
		const sandbox = (mode: SandboxMode | undefined) => sandboxState(mode ?? DEFAULT_SANDBOX_MODE, this.sandboxSupport);
		if (this.demo) {
			return {
				agents: [{ id: DEFAULT_AGENT, model: "offline-demo", sandbox: sandbox(undefined) }],
				demo: true,
				notice: DEMO_NOTICE,
				models: [],
			};
		}
		const { config } = this.options.project.load();
		const agents: AgentDescription[] = Object.entries(config.agents).map(([id, agent]) => {
			const model = config.models[agent.model];
			return {
				id,
				model: model === undefined ? agent.model : `${agent.model} (${model.provider}:${model.model})`,
				...(agent.description === undefined ? {} : { description: agent.description }),
				sandbox: sandbox(agent.sandbox),
			};
		});
		if (agents.length === 0) {
			agents.push({
				id: DEFAULT_AGENT,
				model: this.options.model?.id ?? "default (from the provider key)",
				sandbox: sandbox(undefined),
			});
		}
		return { agents, demo: false, models: this.switchableModels() };
	}
}

export interface AgentDescription {
	id: string;
	model: string;
	description?: string;
	/** Whether its shell commands run in the sandbox it is configured for (docs/sandbox.md). */
	sandbox: SandboxState;
}
