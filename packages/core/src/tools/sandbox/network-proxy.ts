import {
	type ClientRequest,
	createServer,
	type IncomingHttpHeaders,
	type IncomingMessage,
	request,
	type Server,
	type ServerResponse,
} from "node:http";
import { connect, type LookupFunction, type Socket } from "node:net";
import {
	type AllowedHost,
	allowingEntry,
	LocalAddressError,
	namesHost,
	parseAllowedHost,
	publicOnlyLookup,
	type ResolveAll,
} from "./allowed-hosts.js";

/**
 * The only way out of a sandbox whose agent allows some hosts (`network: [hosts]`,
 * docs/sandbox.md): an HTTP proxy on a Unix socket in the Session's temp dir, which the command
 * reaches through a bridge inside its own network namespace (see PROXY_BRIDGE). It forwards plain
 * HTTP requests and CONNECT tunnels (HTTPS) to allowed hosts and answers 403 for any other, saying
 * why. Names are matched as given (`example.com`, or `*.example.com` for its subdomains), on the
 * web's ports unless the entry names one (allowed-hosts.ts), and a name never leads to the
 * machine's own addresses unless its entry names them.
 */
export class HostFilterProxy {
	private readonly allowed: readonly AllowedHost[];
	private readonly publicOnly: { lookup: LookupFunction };

	private constructor(
		private readonly server: Server,
		private readonly hosts: readonly string[],
		resolve: ResolveAll | undefined,
	) {
		this.allowed = hosts.map(parseAllowedHost);
		this.publicOnly = { lookup: publicOnlyLookup(resolve) };
	}

	/** `resolve`: how names are resolved (DNS unless a test says otherwise). */
	static async start(socketPath: string, hosts: readonly string[], resolve?: ResolveAll): Promise<HostFilterProxy> {
		const server = createServer();
		const proxy = new HostFilterProxy(server, hosts, resolve);
		server.on("request", (req, res) => proxy.forward(req, res));
		server.on("connect", (req, client: Socket, head: Buffer) => proxy.tunnel(req.url ?? "", client, head));
		await new Promise<void>((listening, fail) => {
			server.once("error", fail);
			server.listen(socketPath, () => listening());
		});
		return proxy;
	}

	close(): Promise<void> {
		return new Promise((closed) => {
			this.server.close(() => closed());
			this.server.closeAllConnections();
		});
	}

	/**
	 * A plain proxy request: forwarded when it is an `http://` URL of an allowed host. An
	 * `https://` one is the client's mistake (HTTPS goes through CONNECT): a 400, never a throw,
	 * which here would take down the host's process and every Session in it.
	 */
	private forward(req: IncomingMessage, res: ServerResponse): void {
		let target: URL;
		try {
			target = new URL(req.url ?? "");
		} catch {
			res.writeHead(400).end("omniloop sandbox: only proxy requests (an absolute URL) are served here\n");
			return;
		}
		if (target.protocol !== "http:") {
			res
				.writeHead(400, { "content-type": "text/plain" })
				.end(
					`omniloop sandbox: a plain proxy request must be an http:// URL, not ${target.protocol} (HTTPS goes through CONNECT)\n`,
				);
			return;
		}
		const port = Number(target.port || 80);
		const entry = allowingEntry(this.allowed, target.hostname, port);
		if (entry === undefined) {
			res.writeHead(403, { "content-type": "text/plain" }).end(this.refusal(target.hostname, port));
			return;
		}
		// The Host the upstream reads is the allowed one: a client's own (`Host: other.site`) would
		// reach another site behind a shared front (a CDN) under an allowed name.
		const headers = { ...withoutProxyHeaders(req.headers), host: target.host };
		const lookup = entry.local ? {} : this.publicOnly;
		const failed = (error: Error) => {
			if (!res.headersSent) res.writeHead(error instanceof LocalAddressError ? 403 : 502);
			res.end(`omniloop sandbox: ${target.host} could not be reached: ${error.message}\n`);
		};
		let upstream: ClientRequest;
		try {
			upstream = request(target, { method: req.method, headers, ...lookup }, (answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			});
		} catch (error) {
			failed(error instanceof Error ? error : new Error(String(error)));
			return;
		}
		upstream.on("error", failed);
		req.pipe(upstream);
	}

	private tunnel(authority: string, client: Socket, head: Buffer): void {
		client.on("error", () => client.destroy());
		const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(authority);
		const host = match?.[1] ?? authority;
		const port = Number(match?.[2] ?? 0);
		const entry = match === null ? undefined : allowingEntry(this.allowed, host, port);
		if (entry === undefined) {
			client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${this.refusal(host, port)}`);
			return;
		}
		const lookup = entry.local ? {} : this.publicOnly;
		const failed = (error: Error) => {
			const status = error instanceof LocalAddressError ? "403 Forbidden" : "502 Bad Gateway";
			if (client.writable) client.end(`HTTP/1.1 ${status}\r\n\r\nomniloop sandbox: ${error.message}\n`);
			client.destroy();
		};
		let upstream: Socket;
		try {
			upstream = connect({ port, host, ...lookup }, () => {
				client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
				if (head.length > 0) upstream.write(head);
				upstream.pipe(client);
				client.pipe(upstream);
			});
		} catch (error) {
			// A port out of range, say: the sandboxed command's mistake, never the host's crash.
			failed(error instanceof Error ? error : new Error(String(error)));
			return;
		}
		upstream.on("error", failed);
		client.on("close", () => upstream.destroy());
	}

	private refusal(host: string, port: number): string {
		const what = namesHost(this.allowed, host)
			? `port ${port} of ${host} is not allowed`
			: `${host} is not an allowed host`;
		return `omniloop sandbox: ${what} (network: ${this.hosts.join(", ")}; a host without a port allows 80 and 443)\n`;
	}
}

/** The request's headers without those meant for the proxy itself (its credentials, its connection). */
function withoutProxyHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
	const kept: IncomingHttpHeaders = {};
	for (const [name, value] of Object.entries(headers)) if (!name.startsWith("proxy-")) kept[name] = value;
	return kept;
}

/**
 * Runs inside the sandbox, as `node -e PROXY_BRIDGE <socket> <argv…>`: listens on the namespace's
 * own loopback, forwards each connection to the host's proxy socket, and runs argv with the proxy
 * variables pointing at it. Its exit is the command's (a signal is raised again). Plain code in a
 * string: it must run from the sources and from a bundle alike.
 */
export const PROXY_BRIDGE = `
const net = require("node:net");
const { spawn } = require("node:child_process");
const [socketPath, ...argv] = process.argv.slice(1);
const bridge = net.createServer((inside) => {
	const outside = net.connect(socketPath);
	inside.pipe(outside);
	outside.pipe(inside);
	inside.on("error", () => outside.destroy());
	outside.on("error", () => inside.destroy());
});
bridge.listen(0, "127.0.0.1", () => {
	const url = "http://127.0.0.1:" + bridge.address().port;
	const env = { ...process.env };
	for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) env[name] = env[name.toLowerCase()] = url;
	delete env.NO_PROXY;
	delete env.no_proxy;
	const child = spawn(argv[0], argv.slice(1), { stdio: "inherit", env });
	for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
	child.on("exit", (code, signal) => {
		if (signal === null) process.exit(code ?? 1);
		process.removeAllListeners(signal);
		process.kill(process.pid, signal);
	});
});
`;
