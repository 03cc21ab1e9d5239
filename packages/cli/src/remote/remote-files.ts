import { ApiError, OmniloopClient } from "@omniloop/client";
import { type OmniMessage, SessionBusyError } from "@omniloop/core";
import { personMessagesInContext } from "@omniloop/core/internal";
import type { SessionFiles } from "../session/session-files.js";
import type { ServerClient } from "./server-client.js";

/** The events a Session's work between Tasks records (docs/protocol.md §5.6): what the chat shows of it. */
const RECORDED = new Set<OmniMessage["type"]>([
	"checkpoint_created",
	"checkpoint_restored",
	"session_rewound",
	"instructions_loaded",
]);

/**
 * The file commands on a Session the local server hosts, each through its route (docs/protocol.md,
 * "Files, checkpoints, rewind, fork, instructions"): the same answers as in-process, and a
 * `session_busy` answer thrown as core's SessionBusyError, so the chat says the same either way.
 */
export function remoteFiles(server: ServerClient, sessionId: string): SessionFiles {
	const client = new OmniloopClient({ baseUrl: server.url, token: server.token });
	const params = { params: { id: sessionId } };
	const busyAsInProcess = async <T>(work: () => Promise<T>): Promise<T> => {
		try {
			return await work();
		} catch (error) {
			if (error instanceof ApiError && error.code === "session_busy") throw new SessionBusyError(sessionId);
			throw error;
		}
	};
	const history = async (after?: number) =>
		(
			await client.call("GET /chat/sessions/:id", {
				...params,
				...(after === undefined ? {} : { query: { after } }),
			})
		).messages as OmniMessage[];
	/** `work`, then the events it recorded: the answers of these routes leave them out (they go to every viewer). */
	const recorded = (work: () => Promise<unknown>) =>
		busyAsInProcess(async () => {
			const last = (await history()).at(-1)?.seq ?? 0;
			await work();
			return (await history(last)).filter((m) => RECORDED.has(m.type));
		});
	return {
		checkpoints: async () => (await client.call("GET /chat/sessions/:id/checkpoints", params)).checkpoints,
		checkpointDiff: async (checkpointId) =>
			(
				await client.call("GET /chat/sessions/:id/checkpoints/:checkpointId/diff", {
					params: { id: sessionId, checkpointId },
				})
			).files,
		undoTarget: async () => (await client.call("GET /chat/sessions/:id/undo-target", params)).checkpoint,
		undo: (options) => recorded(() => client.call("POST /chat/sessions/:id/undo", { ...params, body: options })),
		restore: (checkpointId, options) =>
			recorded(() =>
				client.call("POST /chat/sessions/:id/checkpoints/:checkpointId/restore", {
					params: { id: sessionId, checkpointId },
					body: options,
				}),
			),
		filesChanged: async () => (await client.call("GET /chat/sessions/:id/files-changed", params)).files,
		personMessages: async () => personMessagesInContext(await history()),
		rewind: (seq, options) =>
			recorded(() => client.call("POST /chat/sessions/:id/rewind", { ...params, body: { seq, ...options } })),
		fork: (seq, workspaceDir) =>
			busyAsInProcess(
				async () =>
					(
						await client.call("POST /chat/sessions/:id/fork", {
							...params,
							body: { seq, ...(workspaceDir === undefined ? {} : { workspaceDir }) },
						})
					).id,
			),
		instructions: async () => (await client.call("GET /chat/sessions/:id", params)).session.instructions,
		reloadInstructions: () => recorded(() => client.call("POST /chat/sessions/:id/instructions/reload", params)),
	};
}
