import { runningServer } from "../commands/server-record.js";
import { ServerClient, ServerRequestError } from "./server-client.js";

/** How long a recorded server has to answer before the CLI runs in-process instead. */
const ANSWER_MS = 1500;

/** What `GET /agents` says of the server (docs/protocol.md §3). */
export interface ServerAgents {
	agents: { id: string; model: string; sandbox: { mode: string; available: boolean; reason?: string } }[];
	demo: boolean;
	workspaceRoots: string[];
}

/**
 * The local server recorded in `$OMNILOOP_HOME/server.json` (docs/protocol.md §1), when its
 * process is alive and it answers an authenticated request in time; otherwise undefined and
 * the CLI runs in-process (a stale file is left for the next server to rewrite).
 */
export async function findServer(
	home: string,
	env: NodeJS.ProcessEnv,
): Promise<{ client: ServerClient; agents: ServerAgents } | undefined> {
	const running = runningServer(home);
	if (running === undefined) return undefined;
	const token = nonEmpty(env.OMNILOOP_TOKEN) ?? running.token;
	if (token === undefined) return undefined;
	const client = new ServerClient(running.url, token);
	try {
		const agents = await client.json<ServerAgents>("GET", "/agents", undefined, AbortSignal.timeout(ANSWER_MS));
		return { client, agents };
	} catch (error) {
		if (error instanceof ServerRequestError || (error instanceof Error && error.name === "TimeoutError"))
			return undefined;
		throw error;
	}
}

function nonEmpty(value: string | undefined): string | undefined {
	return value === undefined || value === "" ? undefined : value;
}
