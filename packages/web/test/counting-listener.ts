import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An HTTP server on another port of this machine, standing for another origin: it records every
 * request it gets (what an attacker's host would learn) and answers with `body`.
 */
export class CountingListener {
	readonly requests: { url: string; headers: IncomingHttpHeaders }[] = [];
	private waiters: (() => void)[] = [];

	private constructor(
		private readonly server: Server,
		readonly port: number,
	) {}

	static async start(body = "", type = "text/plain"): Promise<CountingListener> {
		const server = createServer();
		server.listen(0, "127.0.0.1");
		await once(server, "listening");
		const listener = new CountingListener(server, (server.address() as AddressInfo).port);
		server.on("request", (request, response) => {
			listener.requests.push({ url: request.url ?? "", headers: request.headers });
			for (const wake of listener.waiters.splice(0)) wake();
			response.writeHead(200, { "content-type": type });
			response.end(body);
		});
		return listener;
	}

	/** `127.0.0.1:<port>`: the host a placeholder must name. */
	get host(): string {
		return `127.0.0.1:${this.port}`;
	}

	get origin(): string {
		return `http://${this.host}`;
	}

	/** Resolves once `count` requests have arrived. */
	async received(count: number): Promise<void> {
		while (this.requests.length < count) await new Promise<void>((wake) => this.waiters.push(wake));
	}

	close(): Promise<void> {
		this.server.closeAllConnections();
		return new Promise((done) => this.server.close(() => done()));
	}
}
