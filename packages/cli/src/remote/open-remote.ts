import { resolve } from "node:path";
import { ApiError } from "@omniloop/client";
import { loadSystemConfig } from "@omniloop/core";
import type { OpenedSession, OpenOptions } from "../session/opened-session.js";
import { resumeTarget } from "../session/resume-target.js";
import type { Screen } from "../terminal/screen.js";
import type { FoundServer } from "./find-server.js";
import { remoteFiles } from "./remote-files.js";
import { RemoteSession } from "./remote-session.js";

/**
 * Opens the chat's Session on the running local server (README "One world"): a new one in the
 * current folder, or the one --resume names. Undefined, with a notice saying why, when the server
 * cannot host it (--model, --config-dir, a folder outside its workspace roots, an agent it lacks): the CLI then
 * runs in-process as without a server.
 */
export async function openRemote(
	options: OpenOptions,
	server: FoundServer,
	home: string,
	screen: Screen,
): Promise<OpenedSession | undefined> {
	const { client, url } = server;
	/** `listedLater`: the Session lies in the server's roots, so a restarted server lists it. */
	const inProcess = (why: string, listedLater = true) => {
		const later = listedLater ? " (the web app sees this Session after a restart)" : "";
		screen.notice(screen.err.style.dim(`${why}: running in-process${later}`));
		return undefined;
	};
	if (options.model !== undefined) return inProcess(`--model is not the server's to choose (${url})`);
	// The server reads the omniloop.yaml it was started with: another one given here would be ignored.
	if (options.configDirGiven && server.configDir !== undefined && resolve(options.configDir) !== server.configDir) {
		return inProcess(`--config-dir ${options.configDir} is not the server's (it reads ${server.configDir})`);
	}
	const target = options.resume === undefined ? undefined : resumeTarget({ ...options, resume: options.resume });
	let id: string;
	try {
		if (target === undefined) {
			const body = { agentId: options.agentId, workspaceDir: options.workspaceDir };
			id = (await client.call("POST /chat/sessions", { body })).id;
		} else id = target.sessionId;
		// The Session alone: its history is the chat's to read if it shows it (limit 0).
		const { session } = await client.call("GET /chat/sessions/:id", { params: { id }, query: { limit: 0 } });
		const remote = new RemoteSession(client, id, session.instructions);
		screen.notice(
			screen.err.style.dim(
				`attached to omniloop serve at ${url}: the web app sees this Session live (--local runs in-process)`,
			),
		);
		const { reconnect } = loadSystemConfig(home);
		return {
			session: remote,
			files: remoteFiles(client, id),
			attachedTo: url,
			home,
			reconnect,
			agentId: target?.agentId ?? options.agentId,
			modelId: session.model,
			resumed: target !== undefined,
			demo: server.agents.demo,
			workspaceDir: session.workspaceDir,
			usage: session.usage,
			credentialHint: () => `set the model's key for the server: in the web app, or PUT ${url}credentials/<name>`,
			rename: (title) => remote.rename(title),
			discard: () => remote.discard(),
		};
	} catch (error) {
		if (error instanceof ApiError && [400, 403, 404].includes(error.status))
			return inProcess(`the server at ${url} cannot host it (${error.code}: ${error.reason})`, false);
		throw error;
	}
}
