import { type AgentsAnswer, ApiError, ConnectionError, OmniloopClient } from "@omniloop/client";
import { runningServer } from "../commands/server-record.js";

/** How long a recorded server has to answer before the CLI runs in-process instead. */
const ANSWER_MS = 1500;

/** A running local server: its URL as recorded (for what the CLI says), a client of it, its `GET /agents`. */
export interface FoundServer {
	url: string;
	client: OmniloopClient;
	agents: AgentsAnswer;
	/** The folder whose omniloop.yaml the server reads; undefined from a server that did not record it. */
	configDir: string | undefined;
}

/**
 * The local server recorded in `$OMNILOOP_HOME/server.json` (docs/protocol.md §1), when its
 * process is alive and it answers an authenticated request in time; otherwise undefined and
 * the CLI runs in-process (a stale file is left for the next server to rewrite).
 */
export async function findServer(home: string, env: NodeJS.ProcessEnv): Promise<FoundServer | undefined> {
	const running = runningServer(home);
	if (running === undefined) return undefined;
	const token = nonEmpty(env.OMNILOOP_TOKEN) ?? running.token;
	if (token === undefined) return undefined;
	const client = new OmniloopClient({ baseUrl: running.url, token });
	try {
		const agents = await client.call("GET /agents", { signal: AbortSignal.timeout(ANSWER_MS) });
		return { url: running.url, client, agents, configDir: running.configDir };
	} catch (error) {
		const unanswered = error instanceof Error && error.name === "TimeoutError";
		if (error instanceof ApiError || error instanceof ConnectionError || unanswered) return undefined;
		throw error;
	}
}

function nonEmpty(value: string | undefined): string | undefined {
	return value === undefined || value === "" ? undefined : value;
}
