import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { omniloopHome } from "@omniloop/core";
import { type Command, InvalidArgumentError } from "commander";
import type { CliContext, GlobalOptions } from "../cli-options.js";
import { UsageError } from "../errors.js";
import { EXIT } from "../exit-codes.js";
import { findServer } from "../remote/find-server.js";
import { forgetServer, recordServer } from "./server-record.js";

interface ServeOptions {
	host: string;
	port: number;
	database?: string;
	workspaceRoot: string[];
	allowedHost: string[];
	newToken?: boolean;
}

type Act = (
	action: (ctx: CliContext, options: GlobalOptions) => Promise<number>,
) => (command: Command) => Promise<void>;

function parsePort(value: string): number {
	const port = Number(value);
	if (!Number.isInteger(port) || port < 0 || port > 65535)
		throw new InvalidArgumentError("expected a port (0 for any free one)");
	return port;
}

function collect(value: string, previous: string[]): string[] {
	return [...previous, value];
}

/** A workspace root must be a folder that exists (the server resolves its real path at start). */
function collectFolder(value: string, previous: string[]): string[] {
	const folder = resolve(value);
	if (!existsSync(folder)) throw new InvalidArgumentError(`there is no ${folder}`);
	if (!statSync(folder).isDirectory()) throw new InvalidArgumentError(`${folder} is not a folder`);
	return [...previous, value];
}

/** `omniloop serve`: the Runtime Server, until SIGTERM or Ctrl-C. */
export function addServeCommand(program: Command, act: Act): void {
	program
		.command("serve")
		.description("run the Runtime Server: Sessions over HTTP and SSE for the web app and other clients")
		.option("--host <host>", "the address to listen on (loopback by default)", "127.0.0.1")
		.option("--port <port>", "the port (0 takes a free one)", parsePort, 4317)
		.option(
			"--database <file|url>",
			"the store: a SQLite file, or postgres://… to share one database between several servers (default $OMNILOOP_DATABASE_URL, else $OMNILOOP_HOME/omniloop.db)",
		)
		.option(
			"--workspace-root <dir>",
			"a folder Sessions may work in (repeatable; default the current folder)",
			collectFolder,
			[],
		)
		.option("--allowed-host <name>", "a Host name accepted besides the loopback ones (repeatable)", collect, [])
		.option(
			"--new-token",
			"replace the token kept in $OMNILOOP_HOME/server.json by a fresh one (open tabs and tools need the new one)",
		)
		.action((options: ServeOptions, command: Command) =>
			act((ctx, global) => serveCommand(options, global, ctx))(command),
		);
}

async function serveCommand(options: ServeOptions, global: GlobalOptions, ctx: CliContext): Promise<number> {
	// Loaded only to serve: the server (Hono, Kysely, SQLite) is most of what the CLI would load.
	const { createServer, DEMO_NOTICE, isPostgresUrl } = await import("@omniloop/server");
	await refuseSecondSqliteServer(options, ctx, isPostgresUrl);
	const server = await createServer({
		host: options.host,
		port: options.port,
		configDir: global.configDir,
		home: omniloopHome(ctx.env),
		env: ctx.env,
		workspaceRoots: options.workspaceRoot.length > 0 ? options.workspaceRoot : [ctx.cwd],
		allowedHosts: options.allowedHost,
		newToken: options.newToken === true,
		...(options.database === undefined ? {} : { database: options.database }),
		report: (error) => ctx.screen.warn(`serve: ${error instanceof Error ? error.message : String(error)}`),
		notice: (text) => ctx.screen.warn(`serve: ${text}`),
	});
	// Recorded before the URL is printed: whoever reads that line finds server.json already holding it.
	recordServer(server.home, server.url, process.pid, global.configDir);
	// The first line is the URL alone, so scripts can read it.
	ctx.screen.out.write(`${server.url}\n`);
	if (server.demo) ctx.screen.out.write(`${DEMO_NOTICE}\n`);
	if (server.sandboxNotice !== undefined) ctx.screen.warn(server.sandboxNotice);
	ctx.screen.out.write(
		`Open that URL in a browser (it carries the token after #, which the web app keeps in this browser's local storage for this address). API clients send Authorization: Bearer <token>; the token is also in ${server.home}/server.json unless OMNILOOP_TOKEN is set.\n`,
	);
	const signal = await new Promise<NodeJS.Signals>((resolve) => {
		process.once("SIGTERM", () => resolve("SIGTERM"));
		process.once("SIGINT", () => resolve("SIGINT"));
	});
	ctx.screen.notice(`${signal}: stopping (running Tasks are aborted, Traces flushed)`);
	await server.close();
	forgetServer(server.home, process.pid);
	return EXIT.ok;
}

/**
 * With SQLite a server assumes it is its home's only one (docs/cluster.md): a second one would run
 * Tasks beside the first's on the same Sessions and Traces. Several servers share a home only on
 * Postgres.
 */
async function refuseSecondSqliteServer(
	options: ServeOptions,
	ctx: CliContext,
	isPostgresUrl: (database: string) => boolean,
): Promise<void> {
	// The server's own choice of store (server.ts): --database, else $OMNILOOP_DATABASE_URL, else SQLite.
	if (isPostgresUrl(options.database ?? ctx.env.OMNILOOP_DATABASE_URL ?? "")) return;
	const home = omniloopHome(ctx.env);
	// One that answers: a pid in a stale server.json, reused by another program, refuses nothing.
	const running = await findServer(home, ctx.env);
	if (running === undefined) return;
	throw new UsageError(
		`another omniloop serve runs on ${home} (${running.url}); with SQLite one server serves a home — use it, stop it first, or share a Postgres database (--database postgres://…)`,
	);
}
