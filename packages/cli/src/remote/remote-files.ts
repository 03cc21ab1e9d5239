import { ApiError, type OmniloopClient } from "@omniloop/client";
import { SessionBusyError } from "@omniloop/core";
import { personMessagesInContext } from "@omniloop/core/internal";
import type { SessionFiles } from "../session/session-files.js";

/**
 * The file commands on a Session the local server hosts, each through its route (docs/protocol.md,
 * "Files, checkpoints, rewind, fork, instructions"): the same answers as in-process — a restore's,
 * a rewind's and a reload's recorded events come in the route's answer — and a `session_busy`
 * answer thrown as core's SessionBusyError, so the chat says the same either way.
 */
export function remoteFiles(client: OmniloopClient, sessionId: string): SessionFiles {
	const params = { params: { id: sessionId } };
	const busyAsInProcess = async <T>(work: () => Promise<T>): Promise<T> => {
		try {
			return await work();
		} catch (error) {
			if (error instanceof ApiError && error.code === "session_busy") throw new SessionBusyError(sessionId);
			throw error;
		}
	};
	const atCheckpoint = (checkpointId: string) => ({ params: { id: sessionId, checkpointId } });
	return {
		checkpoints: async () => (await client.call("GET /chat/sessions/:id/checkpoints", params)).checkpoints,
		checkpointDiff: async (checkpointId) =>
			(await client.call("GET /chat/sessions/:id/checkpoints/:checkpointId/diff", atCheckpoint(checkpointId))).files,
		undoTarget: async () => (await client.call("GET /chat/sessions/:id/undo-target", params)).checkpoint,
		undo: (options) =>
			busyAsInProcess(
				async () => (await client.call("POST /chat/sessions/:id/undo", { ...params, body: options })).events,
			),
		restore: (checkpointId, options) =>
			busyAsInProcess(
				async () =>
					(
						await client.call("POST /chat/sessions/:id/checkpoints/:checkpointId/restore", {
							...atCheckpoint(checkpointId),
							body: options,
						})
					).events,
			),
		filesChanged: async () => (await client.call("GET /chat/sessions/:id/files-changed", params)).files,
		personMessages: async () => personMessagesInContext((await client.call("GET /chat/sessions/:id", params)).messages),
		rewind: (seq, options) =>
			busyAsInProcess(async () => {
				const done = await client.call("POST /chat/sessions/:id/rewind", { ...params, body: { seq, ...options } });
				return [...(done.restore?.events ?? []), done.rewound];
			}),
		fork: (seq, workspaceDir) =>
			busyAsInProcess(async () => {
				const { id, leftOut } = await client.call("POST /chat/sessions/:id/fork", {
					...params,
					body: { seq, ...(workspaceDir === undefined ? {} : { workspaceDir }) },
				});
				return { id, leftOut };
			}),
		instructions: async () =>
			(await client.call("GET /chat/sessions/:id", { ...params, query: { limit: 0 } })).session.instructions,
		reloadInstructions: () =>
			busyAsInProcess(async () => [(await client.call("POST /chat/sessions/:id/instructions/reload", params)).event]),
	};
}
