import { randomUUID } from "node:crypto";
import { existsSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEFAULT_CHECKPOINT_FILE_BYTES } from "../../checkpoints/checkpoint-meta.js";
import { configCredentialValuesOf, credentialValuesOf } from "../../config/credential-values.js";
import {
	type LoadedProjectConfig,
	loadProjectConfig,
	PROJECT_CONFIG_FILE,
	ProjectConfigFile,
} from "../../config/project-config.js";
import {
	ConfigError,
	loadSystemConfig,
	omniloopHome,
	type SystemConfig,
	type SystemConfigInput,
} from "../../config/system-config.js";
import { DEFAULT_INSTRUCTIONS_MAX_BYTES } from "../../instructions/project-instructions.js";
import type { ModelAdapter } from "../../model/model-adapter.js";
import { SessionStore } from "../../session-store/session-store.js";
import type { ApprovalRules } from "../../tools/approval-policy.js";
import type { SandboxMode } from "../../tools/sandbox/sandbox-mode.js";
import type { Tool } from "../../tools/tool.js";
import { tightenHome } from "../../trace/private-files.js";
import { sessionDir } from "../../trace/trace-files.js";
import { type ForkOptions, forkPoint } from "../history/fork.js";
import type { ActionGuard, PairingRepairHook, TraceShipHook } from "../loop-types.js";
import type { Session } from "../session/session.js";
import { openNewSession, openResumedSession } from "../session/session-factory.js";
import { AgentConfigError, defineAgent } from "./agent-definition.js";
import type { AgentSetup } from "./agent-setup.js";

export { AgentConfigError, type AgentConfigProblem } from "./agent-definition.js";

/** What `createAgent` takes: the agent's id, and where its config, home, model and tools come from. */
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
	/** The shell's sandbox, in place of the agent's `sandbox` in `omniloop.yaml` (default workspace-write). */
	sandbox?: SandboxMode;
	/** Where `omniloop.yaml` is read (default: the current directory). */
	configDir?: string;
	/** The omniloop home: `system_config.yaml` and `sessions/` (default `$OMNILOOP_HOME` or `~/.omniloop`). */
	home?: string;
	/** Overrides for `system_config.yaml`, key by key. */
	settings?: SystemConfigInput;
	/** The environment `${ENV}` references and default keys are read from, and (filtered, docs/sandbox.md) the one the shell's commands get (default `process.env`). */
	env?: NodeJS.ProcessEnv;
	/** Diagnostic: called when the pairing check had to repair a request (a bug upstream). */
	onPairingRepair?: PairingRepairHook;
	/** For hosts that copy the Trace elsewhere: see TraceShipHook. */
	shipTrace?: TraceShipHook;
	/**
	 * Credential values that never appear in what a Session emits or writes (its stream, its
	 * Trace): each occurrence becomes `[redacted]`. Read at the start of every Task, so a value the
	 * host learns later (a credential stored over HTTP) counts from the next one. Besides these,
	 * the values of `env` named like credentials (`*_API_KEY`, `*_TOKEN`, …, see
	 * credentialValuesOf) and those omniloop.yaml references (`${NAME}` in any setting) are always redacted.
	 */
	secrets?: () => readonly string[];
	/**
	 * Files and folders the built-in file tools never read, list or write, whatever the workspace
	 * (the host's secrets: its store, a credentials file). The omniloop home is always one of them.
	 */
	deniedPaths?: readonly string[];
	/** Checkpoints of the workspace (over omniloop.yaml's `checkpoints`): false turns them off. See docs/checkpoints.md. */
	checkpoints?: false | { maxFileBytes?: number };
	/** For hosts whose right to run a Session can end: see ActionGuard. */
	guard?: ActionGuard;
}

/** An agent of the project: makes, forks and resumes its Sessions, all under one omniloop home. */
export interface Agent {
	readonly agentId: string;
	readonly config: SystemConfig;
	readonly home: string;
	/** The Sessions under `home`: their history, headers, titles, and deleting one. */
	readonly sessions: SessionStore;
	/**
	 * A new Session in `workspaceDir`: its model, MCP servers, tools and project instructions load
	 * now. `workspaceRoot` is where the AGENTS.md walk starts (default: the enclosing git
	 * repository's top, else `workspaceDir`).
	 */
	createSession(options: { workspaceDir: string; workspaceRoot?: string }): Promise<Session>;
	/**
	 * A new Session whose history is Session `sessionId`'s before the person's message `seq` (its
	 * own Trace, its parent named in it); with `workspaceDir`, in a new folder holding the files as
	 * they were at that point (those it did not get: `session.leftOut`).
	 */
	forkSession(sessionId: string, seq: number, options?: ForkOptions): Promise<Session>;
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
	const projectFile = new ProjectConfigFile(configDir);
	const hostSecrets = options.secrets ?? (() => []);
	const home = resolve(options.home ?? omniloopHome(env));
	tightenHome(home);
	const config = loadSystemConfig(home, options.settings);
	/** The agent as omniloop.yaml (`project`) defines it now. */
	const setupOf = (project: LoadedProjectConfig): AgentSetup => {
		const configured = project.config.checkpoints ?? { enabled: true, maxFileBytes: DEFAULT_CHECKPOINT_FILE_BYTES };
		const checkpoints =
			options.checkpoints === false
				? { enabled: false, maxFileBytes: configured.maxFileBytes }
				: { ...configured, ...options.checkpoints };
		return {
			definition: defineAgent(options.agentId, project, configDir, env, options),
			config,
			env,
			configDir,
			home,
			instructionsMaxBytes: project.config.instructions?.maxBytes ?? DEFAULT_INSTRUCTIONS_MAX_BYTES,
			checkpoints: checkpoints.enabled ? { maxFileBytes: checkpoints.maxFileBytes } : undefined,
			hostTools: options.tools ?? [],
			builtins: options.builtins ?? true,
			models: options.models ?? {},
			onPairingRepair: options.onPairingRepair,
			shipTrace: options.shipTrace,
			// The home holds the server's token, the store and every Session's Trace: a workspace that
			// contains it (a server started in ~) must still not hand them to a model.
			deniedPaths: [home, ...(options.deniedPaths ?? []).map((path) => resolve(path))],
			// Read again as each Session loads (MCP servers, subagents, models): a model that could write
			// it would choose what the next Session runs, sandbox and approvals included.
			readOnlyPaths: [join(configDir, PROJECT_CONFIG_FILE)],
			secrets: () => [...hostSecrets(), ...credentialValuesOf(env), ...configCredentialValuesOf(project.config, env)],
			guard: options.guard,
			// Subagents are agents of the same project, on their own configured models.
			define: (agentId) => defineAgent(agentId, loadProjectConfig(configDir), configDir, env),
		};
	};
	// Made now, so a bad config or an unknown agent fails createAgent itself.
	let project = projectFile.load();
	let setup = setupOf(project);
	/**
	 * The agent as it is when a Session loads: omniloop.yaml is read again (parsed again only when its
	 * text changed), so an edit — a tighter approval, another system prompt, a credential — holds
	 * from the next Session on, as MCP servers and models already do, without a restart.
	 */
	const setupNow = (): AgentSetup => {
		const now = projectFile.load();
		// Gone, or replaced since it was first read (a command may have done it, docs/sandbox.md):
		// the agent is not made again from no file, with no rules and the default model.
		if (now.file === undefined && project.file !== undefined) {
			throw new ConfigError(
				project.file,
				"",
				"the file is gone, or was replaced, since omniloop first read it; put it back, or restart omniloop to read the new one",
			);
		}
		if (now !== project) {
			setup = setupOf(now);
			project = now;
		}
		return setup;
	};
	return {
		agentId: options.agentId,
		config,
		home,
		sessions: new SessionStore(home),
		async createSession({ workspaceDir, workspaceRoot }) {
			const given = resolve(workspaceDir);
			if (!existsSync(given) || !statSync(given).isDirectory()) {
				throw new AgentConfigError(`createSession: workspaceDir ${given} is not a directory`);
			}
			// The real path is what the Session is confined to, for good: its tools never resolve it again.
			const dir = realpathSync(given);
			const sessionId = randomUUID();
			return openNewSession(setupNow(), {
				sessionId,
				workspaceDir: dir,
				traceDir: sessionDir(home, sessionId),
				depth: 0,
				...(workspaceRoot === undefined ? {} : { workspaceRoot: resolve(workspaceRoot) }),
			});
		},
		async forkSession(parentId, seq, forkOptions = {}) {
			const forking = setupNow();
			const from = await forkPoint(
				home,
				sessionDir(home, parentId),
				parentId,
				seq,
				forkOptions,
				forking.checkpoints?.maxFileBytes,
			);
			const sessionId = randomUUID();
			return openNewSession(
				forking,
				{
					sessionId,
					workspaceDir: from.workspaceDir,
					traceDir: sessionDir(home, sessionId),
					depth: 0,
					...(from.header.workspaceRoot === undefined ? {} : { workspaceRoot: from.header.workspaceRoot }),
				},
				{ parent: { sessionId: parentId, seq }, history: from.history, leftOut: from.leftOut },
			);
		},
		resumeSession(sessionId) {
			return openResumedSession(setupNow(), sessionDir(home, sessionId), sessionId);
		},
	};
}
