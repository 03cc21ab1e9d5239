import {
	type Agent,
	AgentConfigError,
	createAgent,
	DemoModel,
	emptyUsage,
	loadProjectConfig,
	type ModelAdapter,
	omniloopHome,
} from "@omniloop/core";
import { readChosenModel, renameSession } from "@omniloop/core/internal";
import { findServer } from "../remote/find-server.js";
import { openRemote } from "../remote/open-remote.js";
import type { Screen } from "../terminal/screen.js";
import { checkProjectConfig, unknownAgent } from "./config-checks.js";
import { credentialHint, findCredential } from "./credential-hint.js";
import { type ModelChoice, parseModelFlag, providerModel } from "./model-choice.js";
import type { OpenedSession, OpenOptions } from "./opened-session.js";
import { type ResumeTarget, resumeTarget } from "./resume-target.js";
import { localFiles } from "./session-files.js";
import { readSessionHeader } from "./session-lookup.js";
import { saveOrigin } from "./session-origin.js";

export type { ChatSession, OpenedSession, OpenOptions } from "./opened-session.js";

export const DEMO_NOTICE =
	"No model is configured and no provider key is set (no omniloop.yaml here, no OPENAI_API_KEY or ANTHROPIC_API_KEY). " +
	'Starting the offline demo: a scripted model; no provider is called. See "Use a real model" in the README to set one up.';

/**
 * On the running local server when one answers for this home (unless --local), else in-process:
 * creates the agent (or the offline demo's, when there is no model at all), then a new or resumed Session.
 */
export async function openSession(requested: OpenOptions, screen: Screen): Promise<OpenedSession> {
	const home = omniloopHome(requested.env);
	const server = requested.local ? undefined : await findServer(home, requested.env);
	const remote = server === undefined ? undefined : await openRemote(requested, server, home, screen);
	return remote ?? (await openInProcess(requested, screen));
}

async function openInProcess(requested: OpenOptions, screen: Screen): Promise<OpenedSession> {
	const target = requested.resume === undefined ? undefined : resumeTarget({ ...requested, resume: requested.resume });
	// Resumed without --model: on the model a person chose for it (/model, or the server's PATCH), if any.
	const chosen =
		target === undefined || requested.model !== undefined
			? undefined
			: readChosenModel(omniloopHome(requested.env), target.sessionId);
	const choice = parseModelFlag(requested.model ?? chosen?.name);
	const options: OpenOptions =
		target === undefined
			? requested
			: { ...requested, agentId: target.agentId, configDir: target.configDir, workspaceDir: target.workspaceDir };
	checkProjectConfig({ ...options, choice }, screen);
	if (target?.notice !== undefined) screen.notice(screen.err.style.dim(target.notice));
	const { agent, demo } = await makeAgent(options, choice, screen, target);
	const session =
		target === undefined
			? await agent.createSession({ workspaceDir: options.workspaceDir })
			: await agent.resumeSession(target.sessionId);
	if (target === undefined) saveOrigin(agent.home, session.id, options.configDir);
	for (const failure of session.loadErrors) {
		screen.warn(`MCP server ${failure.server} did not start: ${failure.message} (its tools are missing)`);
	}
	const { sandbox } = session;
	if (!sandbox.available && session.toolNames.includes("shell")) {
		screen.warn(
			`The shell's sandbox (${sandbox.mode}) is not available: ${sandbox.reason}. Every shell call will ask you, even with --yes or "always".`,
		);
	}
	const header = readSessionHeader(agent.home, session.id);
	const credential = findCredential({
		configDir: options.configDir,
		agentId: options.agentId,
		env: options.env,
		modelName: choice.kind === "named" ? choice.name : undefined,
		recordedModelRef: target === undefined ? undefined : header.modelRef,
		providerVariable: choice.kind === "provider" ? { variable: choice.variable, flag: choice.flag } : undefined,
	});
	const resumed = target !== undefined;
	const usage = resumed ? agent.sessions.list().find((s) => s.sessionId === session.id)?.usage : undefined;
	return {
		session,
		files: localFiles(agent, session),
		attachedTo: undefined,
		home: agent.home,
		reconnect: agent.config.reconnect,
		agentId: options.agentId,
		// --model on a resumed Session runs it on that model (core's `modelName`, or the adapter
		// given), not the recorded one.
		modelId: (resumed ? chosenModelId(options.configDir, choice) : undefined) ?? header.model,
		resumed,
		demo,
		workspaceDir: header.workspaceDir,
		usage: usage ?? emptyUsage(),
		credentialHint: () => credentialHint(credential),
		rename: async (title) => renameSession(agent.home, session.id, title),
		discard: () => agent.sessions.deleteSync(session.id),
	};
}

async function makeAgent(
	options: OpenOptions,
	choice: ModelChoice,
	screen: Screen,
	target: ResumeTarget | undefined,
): Promise<{ agent: Agent; demo: boolean }> {
	const base = { agentId: options.agentId, configDir: options.configDir, env: options.env };
	// A demo Session goes on with the demo: a real model would get a conversation it never had.
	if (target?.demo === true && choice.kind === "agent") {
		return { agent: await createAgent({ ...base, model: new DemoModel() }), demo: true };
	}
	const model: ModelAdapter | undefined = choice.kind === "provider" ? providerModel(choice, options.env) : undefined;
	try {
		const agent = await createAgent({
			...base,
			...(model === undefined ? {} : { model }),
			...(choice.kind === "named" ? { modelName: choice.name } : {}),
		});
		return { agent, demo: false };
	} catch (error) {
		if (error instanceof AgentConfigError && error.problem === "unknown_agent")
			throw unknownAgent(options, target !== undefined);
		if (!(error instanceof AgentConfigError && error.problem === "no_model")) throw error;
		screen.notice(screen.err.style.yellow(DEMO_NOTICE));
		return { agent: await createAgent({ ...base, model: new DemoModel() }), demo: true };
	}
}

/** "provider:model" of the model --model chose, as the Trace would record it; undefined without --model. */
function chosenModelId(configDir: string, choice: ModelChoice): string | undefined {
	if (choice.kind === "provider") return `${choice.provider}:${choice.model}`;
	if (choice.kind !== "named") return undefined;
	const model = loadProjectConfig(configDir).config.models[choice.name];
	return model === undefined ? undefined : `${model.provider}:${model.model}`;
}
