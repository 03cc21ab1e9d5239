import { realpathSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { createAdaptorServer } from "@hono/node-server";
import {
	loadSystemConfig,
	type ModelAdapter,
	omniloopHome,
	ProjectConfigFile,
	type SystemConfig,
	type SystemConfigInput,
	type Tool,
} from "@omniloop/core";
import { buildApp } from "./app.js";
import { resolveToken } from "./auth/token.js";
import { Cluster } from "./cluster/cluster.js";
import { AgentPool } from "./host/agents.js";
import { Credentials } from "./host/credentials.js";
import { EventBus } from "./host/event-bus.js";
import type { HostContext } from "./host/host-context.js";
import { SessionRegistry } from "./host/session-registry.js";
import { Metrics } from "./metrics.js";
import type { ServerState } from "./server-state.js";
import { Flusher } from "./sse/flusher.js";
import { openStore } from "./store/open-store.js";
import { WorkflowRunner } from "./workflows/workflow-runner.js";

export interface ServerOptions {
	/** Default 127.0.0.1 (loopback). */
	host?: string;
	/** Default 4317; 0 takes a free port. */
	port?: number;
	/** Where omniloop.yaml is read (default: the current folder). */
	configDir?: string;
	/** The omniloop home (default `$OMNILOOP_HOME` or `~/.omniloop`). */
	home?: string;
	/** The SQLite file, or a `postgres://` URL (default `OMNILOOP_DATABASE_URL`, else `<home>/omniloop.db`). */
	database?: string;
	/** Folders a Session's workspaceDir must lie in; the first is the default (default: the current folder). */
	workspaceRoots?: readonly string[];
	/** Host names accepted besides the loopback ones. */
	allowedHosts?: readonly string[];
	/** The token (default `OMNILOOP_TOKEN`, else generated and written to `<home>/server.json`). */
	token?: string;
	env?: NodeJS.ProcessEnv;
	/** One model for every agent (embedding, tests). */
	model?: ModelAdapter;
	/** Adapters standing in for models of omniloop.yaml, by name. */
	models?: Readonly<Record<string, ModelAdapter>>;
	/** The host's own tools, added to every agent's. */
	tools?: readonly Tool[];
	/** Overrides for system_config.yaml. */
	settings?: SystemConfigInput;
	/** Overrides for the `server:` settings of system_config.yaml. */
	server?: Partial<SystemConfig["server"]>;
	/** Where failures nobody waits for go (default: stderr). */
	report?: (error: unknown) => void;
}

export interface RunningServer {
	/** `http://127.0.0.1:<port>` */
	readonly origin: string;
	/** The URL to open: the origin with `/?token=…`. */
	readonly url: string;
	readonly port: number;
	readonly token: string;
	/** No model is configured: Sessions run the offline demo. */
	readonly demo: boolean;
	readonly home: string;
	/** Graceful shutdown: running Tasks aborted (Traces flushed), streams ended, the store closed. */
	close(): Promise<void>;
}

/** Starts the Runtime Server and resolves once it listens. */
export async function createServer(options: ServerOptions = {}): Promise<RunningServer> {
	const env = options.env ?? process.env;
	const home = resolve(options.home ?? omniloopHome(env));
	const configDir = resolve(options.configDir ?? process.cwd());
	const settings = { ...loadSystemConfig(home, options.settings).server, ...options.server };
	const database = options.database ?? (env.OMNILOOP_DATABASE_URL || join(home, "omniloop.db"));
	const report = options.report ?? ((error: unknown) => process.stderr.write(`omniloop serve: ${String(error)}\n`));
	const { store, postgres } = await openStore(database);
	let cluster: Cluster | undefined;
	try {
		if (postgres !== undefined) cluster = await Cluster.start(postgres, { home, leaseMs: settings.leaseMs, report });
		const project = new ProjectConfigFile(configDir);
		const credentials = new Credentials(env, await store.credentials(), project);
		const agents = await AgentPool.open({
			configDir,
			project,
			home,
			env: credentials.env,
			model: options.model,
			models: options.models,
			settings: options.settings,
			tools: options.tools,
			shipTrace: cluster === undefined ? undefined : shipperOf(cluster),
			guard: cluster === undefined ? undefined : guardOf(cluster),
		});
		const metrics = new Metrics();
		const host: HostContext = {
			home,
			project,
			store,
			agents,
			credentials,
			bus: new EventBus(),
			metrics,
			report,
			cluster,
		};
		const registry = await SessionRegistry.open(host);
		await cluster?.relayBus(host.bus, {
			sessionDeleted: (id) => registry.deletedElsewhere(id),
			credentialUpdated: (name) => registry.credentialUpdatedElsewhere(name),
		});
		const workflows = await WorkflowRunner.open(registry, host);
		const token = resolveToken(home, env, options.token);
		const state: ServerState = {
			registry,
			host,
			token,
			workspaceRoots: (options.workspaceRoots ?? [process.cwd()]).map((root) => realpathSync(resolve(root))),
			viewer: settings,
			flusher: new Flusher(),
			metrics,
			workflows,
		};
		const app = buildApp(state, {
			allowedHosts: options.allowedHosts ?? [],
			bodyLimitBytes: settings.bodyLimitBytes,
			demo: () => agents.demo,
		});
		const server = createAdaptorServer({ fetch: app.fetch });
		const hostname = options.host ?? "127.0.0.1";
		await new Promise<void>((done, fail) => {
			server.once("error", fail);
			server.listen(options.port ?? 4317, hostname, () => done());
		});
		const { port } = server.address() as AddressInfo;
		const origin = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
		let closing: Promise<void> | undefined;
		return {
			origin,
			url: `${origin}/?token=${token}`,
			port,
			token,
			demo: agents.demo,
			home,
			close() {
				closing ??= (async () => {
					workflows.close();
					await registry.close();
					await new Promise<void>((done) => {
						server.close(() => done());
						// Open SSE streams would hold close() forever: they end now.
						if ("closeAllConnections" in server) server.closeAllConnections();
					});
					await cluster?.close();
					await store.close();
				})();
				return closing;
			},
		};
	} catch (error) {
		await cluster?.close();
		await store.close();
		throw error;
	}
}

function shipperOf(cluster: Cluster): (sessionId: string) => Promise<void> {
	return (sessionId) => cluster.shipTrace(sessionId);
}

function guardOf(cluster: Cluster): (sessionId: string) => void {
	return (sessionId) => cluster.guard(sessionId);
}
