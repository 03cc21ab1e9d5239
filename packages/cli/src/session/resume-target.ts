import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { omniloopHome, PROJECT_CONFIG_FILE } from "@omniloop/core";
import { UsageError } from "../errors.js";
import { readSessionHeader, resolveSessionId } from "./session-lookup.js";
import { readOrigin } from "./session-origin.js";

/** Where and how a resumed Session runs: its own folder, agent and (when it has one there) config. */
export interface ResumeTarget {
	sessionId: string;
	agentId: string;
	configDir: string;
	workspaceDir: string;
	/** The Session was the offline demo's: it goes on with the demo, whatever is configured now. */
	demo: boolean;
	/** Said before the Session opens, when it does not run where the command was typed. */
	notice: string | undefined;
}

export interface ResumeRequest {
	resume: string;
	agentId: string;
	agentGiven: boolean;
	configDir: string;
	configDirGiven: boolean;
	workspaceDir: string;
	env: NodeJS.ProcessEnv;
}

/**
 * --resume goes on where the Session was made: in its folder, with its agent, and with the
 * omniloop.yaml of that folder unless --config-dir says otherwise. What makes that impossible
 * (the folder is gone, --agent names another agent) is said, not worked around.
 */
export function resumeTarget(request: ResumeRequest): ResumeTarget {
	const home = omniloopHome(request.env);
	const sessionId = resolveSessionId(home, request.resume);
	const header = readSessionHeader(home, sessionId);
	if (request.agentGiven && request.agentId !== header.agentId) {
		throw new UsageError(
			`Session ${sessionId} is agent ${header.agentId}'s, not ${request.agentId}'s; leave out --agent to resume it`,
		);
	}
	const folder = header.workspaceDir;
	if (!existsSync(folder)) {
		throw new UsageError(`Session ${sessionId} worked in ${folder}, which no longer exists; it cannot be resumed`);
	}
	const configDir = request.configDirGiven ? request.configDir : recordedConfigDir(home, sessionId, folder, request);
	const elsewhere = resolve(folder) !== resolve(request.workspaceDir);
	const ownConfig = existsSync(join(configDir, PROJECT_CONFIG_FILE));
	return {
		sessionId,
		agentId: header.agentId,
		configDir,
		workspaceDir: folder,
		demo: header.model === "offline-demo",
		notice: elsewhere
			? `Resuming in the Session's folder ${folder}${ownConfig ? ` with ${join(configDir, PROJECT_CONFIG_FILE)}` : ""}.`
			: undefined,
	};
}

/** The config the Session was made with; else its folder's omniloop.yaml; else the current folder's. */
function recordedConfigDir(home: string, sessionId: string, folder: string, request: ResumeRequest): string {
	const recorded = readOrigin(home, sessionId)?.configDir;
	if (recorded !== undefined) {
		if (!existsSync(recorded)) {
			throw new UsageError(
				`Session ${sessionId} was configured from ${recorded}, which no longer exists; pass --config-dir to resume it with another omniloop.yaml`,
			);
		}
		return recorded;
	}
	return existsSync(join(folder, PROJECT_CONFIG_FILE)) ? folder : request.configDir;
}
