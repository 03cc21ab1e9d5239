import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";

export interface SocketLimits {
	/** A socket that has not sent a whole request head by then is closed. */
	headersTimeoutMs: number;
	/** Open sockets that have not yet made a request with the token; one more is closed at once. */
	maxUnauthenticatedSockets: number;
}

/** The `http.createServer` options that close a socket which never finishes its request head. */
export function headerTimeouts(limits: SocketLimits): {
	headersTimeout: number;
	requestTimeout: number;
	connectionsCheckingInterval: number;
} {
	return {
		headersTimeout: limits.headersTimeoutMs,
		// Node refuses a request timeout below the headers timeout; bodies are small (bodyLimitBytes).
		requestTimeout: Math.max(limits.headersTimeoutMs, 300_000),
		// Node looks for expired heads only this often: at most half the timeout late.
		connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 2))),
	};
}

/**
 * Caps the sockets that have not proved they hold the token: anyone who can reach the port can
 * open sockets, and without a cap they would hold the process's file descriptors. A socket counts
 * from its connection until its first request with the token passes (`authenticated`) or it closes.
 * A socket that sends nothing at all is closed after the headers timeout too: Node's own
 * `headersTimeout` starts only with a request's first byte.
 */
export class UnauthenticatedSockets {
	private open = 0;
	private readonly trusted = new WeakSet<Socket>();
	private readonly silent = new Map<Socket, NodeJS.Timeout>();

	constructor(private readonly limits: SocketLimits) {}

	watch(server: Server): void {
		server.on("connection", (socket: Socket) => {
			if (this.open >= this.limits.maxUnauthenticatedSockets) {
				socket.destroy();
				return;
			}
			this.open++;
			this.silent.set(
				socket,
				setTimeout(() => socket.destroy(), this.limits.headersTimeoutMs),
			);
			socket.once("close", () => {
				this.spoke(socket);
				if (!this.trusted.has(socket)) this.open--;
			});
		});
		server.on("request", (request: IncomingMessage) => this.spoke(request.socket));
	}

	/** The socket made a request with the token: it no longer counts against the cap. */
	authenticated(socket: Socket): void {
		if (this.trusted.has(socket)) return;
		this.trusted.add(socket);
		this.open--;
	}

	/** A whole request head arrived (or the socket closed): Node's timeouts take over. */
	private spoke(socket: Socket): void {
		const timer = this.silent.get(socket);
		if (timer === undefined) return;
		clearTimeout(timer);
		this.silent.delete(socket);
	}
}
