import { realpathSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { createAdaptorServer } from "@hono/node-server";
import {
	loadSystemConfig,
	type ModelAdapter,
	omniloopHome,
	SessionStore,
	type SystemConfig,
	type SystemConfigInput,
	type Tool,
} from "@omniloop/core";
import { ProjectConfigFile, type SandboxSupport } from "@omniloop/core/internal";
import { buildApp } from "./app.js";
import { resolveToken } from "./auth/token.js";
import { servesWorkspace } from "./auth/workspace.js";
import { Cluster } from "./cluster/cluster.js";
import { LeaseLostError } from "./cluster/leases/leases.js";
import type { Coordinator } from "./coordination/coordinator.js";
import { LocalCoordinator } from "./coordination/local-coordinator.js";
import { AgentPool } from "./host/agents.js";
import { Credentials } from "./host/credentials.js";
import type { HostContext } from "./host/host-context.js";
import { EventBus } from "./host/log/event-bus.js";
import { SessionRegistry } from "./host/session-registry.js";
import { reportStoreFailure } from "./host/store-failures.js";
import { Metrics } from "./metrics.js";
import { exposureNotice, isLoopbackHost } from "./net/exposure.js";
import { headerTimeouts, UnauthenticatedSockets } from "./net/socket-limits.js";
import type { ServerState } from "./server-state.js";
import { Flusher } from "./sse/flusher.js";
import { openStore } from "./store/open-store.js";
import { UsageRecorder } from "./usage/usage-recorder.js";
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
	/** The token (default `OMNILOOP_TOKEN`, else the one kept in `<home>/server.json`, else a fresh one written there). */
	token?: string;
	/** Replace the token kept in `<home>/server.json` by a fresh one (`omniloop serve --new-token`). */
	newToken?: boolean;
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
	/** Where what a person should know at start goes, one sentence a call (default: stderr): Sessions hidden, an exposed host. */
	notice?: (text: string) => void;
}

export interface RunningServer {
	/** `http://127.0.0.1:<port>` */
	readonly origin: string;
	/** The URL to open: the origin with `/#token=…` (a fragment: no request or Referer carries it). */
	readonly url: string;
	readonly port: number;
	readonly token: string;
	/** No model is configured: Sessions run the offline demo. */
	readonly demo: boolean;
	/**
	 * Set when this machine cannot sandbox the shell's commands: what to tell the person starting
	 * the server (every shell call then asks a person; docs/sandbox.md).
	 */
	readonly sandboxNotice: string | undefined;
	readonly home: string;
	/** Every route the router serves (`GET /chat/sessions/:id`, …): what docs/protocol.md lists. */
	readonly routes: readonly { method: string; path: string }[];
	/** Graceful shutdown: running Tasks aborted (Traces flushed), streams ended, the store closed. */
	close(): Promise<void>;
}

/** Starts the Runtime Server and resolves once it listens. */
/** Addresses that bind every interface: not a name a browser's Host header may carry here. */
const WILDCARD_HOSTS: ReadonlySet<string> = new Set(["0.0.0.0", "::", "[::]", ""]);

export async function createServer(options: ServerOptions = {}): Promise<RunningServer> {
	const env = options.env ?? process.env;
	const home = resolve(options.home ?? omniloopHome(env));
	const configDir = resolve(options.configDir ?? process.cwd());
	const settings = { ...loadSystemConfig(home, options.settings).server, ...options.server };
	const database = options.database ?? (env.OMNILOOP_DATABASE_URL || join(home, "omniloop.db"));
	const report = options.report ?? ((error: unknown) => process.stderr.write(`omniloop serve: ${String(error)}\n`));
	const metrics = new Metrics();
	const notice = options.notice ?? ((text: string) => process.stderr.write(`omniloop serve: ${text}\n`));
	const workspaceRoots = (options.workspaceRoots ?? [process.cwd()]).map((root) => realpathSync(resolve(root)));
	const { store, postgres } = await openStore(database, { giveUpMs: settings.storeBusyMs, counters: metrics });
	let coordinator: Coordinator | undefined;
	try {
		// Postgres is shared by every process on it; SQLite has one.
		coordinator =
			postgres === undefined
				? new LocalCoordinator(store)
				: await Cluster.start(postgres, { home, leaseMs: settings.leaseMs, report });
		const project = new ProjectConfigFile(configDir);
		const credentials = new Credentials(env, await store.credentials(), project);
		// Before the agents: the token is one of the values no message may show.
		const token = resolveToken(home, env, { given: options.token, fresh: options.newToken });
		const agents = await AgentPool.open({
			configDir,
			project,
			home,
			env: credentials.env,
			model: options.model,
			models: options.models,
			settings: options.settings,
			tools: options.tools,
			shipTrace: coordinator.engineHooks.shipTrace,
			// The store holds the credentials; the home (its default place) is denied by core itself.
			deniedPaths: postgres === undefined ? sqliteFiles(database) : [],
			secrets: () => [token, ...credentials.storedValues()],
			guard: coordinator.engineHooks.guard,
		});
		const host: HostContext = {
			home,
			sessions: new SessionStore(home),
			project,
			store,
			usage: new UsageRecorder(
				coordinator,
				(row, error, retrying) =>
					reportStoreFailure(host, { sessionId: row.sessionId, operation: "usage", error, retrying }),
				(error) => error instanceof LeaseLostError,
			),
			agents,
			credentials,
			bus: new EventBus(),
			metrics,
			report,
			coordinator,
		};
		const registry = await SessionRegistry.open(host, servesWorkspace(workspaceRoots));
		if (registry.hiddenCount > 0) notice(hiddenNotice(registry.hiddenCount, home, workspaceRoots));
		await coordinator.relayBus(host.bus, {
			sessionDeleted: (id) => registry.deletedElsewhere(id),
			credentialUpdated: (name) => registry.credentialUpdatedElsewhere(name),
			missed: async () => {
				for (const [name, value] of await store.credentials()) {
					if (credentials.env[name] !== value) await registry.credentialUpdatedElsewhere(name);
				}
				await registry.forgetDeletedMeanwhile();
				return registry.summaries();
			},
		});
		const workflows = await WorkflowRunner.open(registry, host);
		const state: ServerState = {
			registry,
			host,
			token,
			workspaceRoots,
			viewer: settings,
			flusher: new Flusher(),
			metrics,
			workflows,
		};
		const sockets = new UnauthenticatedSockets(settings);
		const app = buildApp(state, {
			allowedHosts: options.allowedHosts ?? [],
			bodyLimitBytes: settings.bodyLimitBytes,
			demo: () => agents.demo,
			authenticated: (socket) => sockets.authenticated(socket),
		});
		const server = createAdaptorServer({ fetch: app.fetch, serverOptions: headerTimeouts(settings) });
		sockets.watch(server as Server);
		const hostname = options.host ?? "127.0.0.1";
		await new Promise<void>((done, fail) => {
			server.once("error", fail);
			server.listen(options.port ?? 4317, hostname, () => done());
		});
		const { port } = server.address() as AddressInfo;
		// Bound to every address (0.0.0.0, ::), the URL names one a browser may use here: the first
		// allowed host, else loopback (the Host guard refuses "0.0.0.0" itself).
		const named = WILDCARD_HOSTS.has(hostname) ? (options.allowedHosts?.[0] ?? "127.0.0.1") : hostname;
		const origin = `http://${named.includes(":") ? `[${named}]` : named}:${port}`;
		if (!isLoopbackHost(hostname)) notice(exposureNotice(hostname, origin));
		let closing: Promise<void> | undefined;
		return {
			origin,
			url: `${origin}/#token=${token}`,
			port,
			token,
			demo: agents.demo,
			sandboxNotice: unsandboxedNotice(agents.sandboxSupport),
			home,
			routes: servedRoutes(app),
			close() {
				closing ??= (async () => {
					workflows.close();
					await registry.close();
					await new Promise<void>((done) => {
						server.close(() => done());
						// Open SSE streams would hold close() forever: they end now.
						if ("closeAllConnections" in server) server.closeAllConnections();
					});
					await host.coordinator.close();
					const lost = await host.usage.close();
					if (lost.length > 0)
						report(new Error(`${lost.length} usage rows could not be written: ${JSON.stringify(lost)}`));
					await store.close();
				})();
				return closing;
			},
		};
	} catch (error) {
		await coordinator?.close();
		await store.close();
		throw error;
	}
}

/** The routes of the router, without the middleware (registered for every method). */
function servedRoutes(app: { routes: readonly { method: string; path: string }[] }) {
	const seen = new Set<string>();
	return app.routes
		.filter((route) => route.method !== "ALL")
		.map(({ method, path }) => ({ method, path }))
		.filter(({ method, path }) => !seen.has(`${method} ${path}`) && seen.add(`${method} ${path}`) !== undefined);
}

function unsandboxedNotice(support: SandboxSupport): string | undefined {
	if (support.available) return undefined;
	return `The shell's sandbox is not available: ${support.reason}. Every shell call of an agent whose sandbox is not off will ask a person, whatever its approval policy.`;
}

function hiddenNotice(count: number, home: string, roots: readonly string[]): string {
	const sessions = count === 1 ? "1 Session" : `${count} Sessions`;
	return `${sessions} in ${home} ${count === 1 ? "is" : "are"} hidden: ${count === 1 ? "its" : "their"} workspace is outside the workspace roots (${roots.join(", ")}), so ${count === 1 ? "it is" : "they are"} not listed, read or driven over HTTP; add --workspace-root for ${count === 1 ? "its folder" : "their folders"} to serve ${count === 1 ? "it" : "them"}.`;
}

/** A SQLite store's files: the database and the two WAL mode keeps beside it. */
function sqliteFiles(database: string): string[] {
	const file = resolve(database);
	return [file, `${file}-wal`, `${file}-shm`];
}
