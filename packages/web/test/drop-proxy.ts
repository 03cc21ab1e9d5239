import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy in front of the server that can cut every connection at once: a real dropped
 * network (the browser sees its streams fail), not a client-side abort.
 */
export class DropProxy {
	private constructor(
		private readonly server: Server,
		private readonly sockets: Set<Socket>,
		readonly port: number,
		private readonly state: { refusing: boolean },
	) {}

	static async start(targetPort: number): Promise<DropProxy> {
		const sockets = new Set<Socket>();
		const state = { refusing: false };
		const server = createServer((client) => {
			// The server as if gone: every connection is cut as it comes.
			if (state.refusing) {
				client.destroy();
				return;
			}
			const upstream = connect(targetPort, "127.0.0.1");
			for (const socket of [client, upstream]) {
				sockets.add(socket);
				socket.on("close", () => sockets.delete(socket));
				socket.on("error", () => {
					client.destroy();
					upstream.destroy();
				});
			}
			client.pipe(upstream);
			upstream.pipe(client);
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const address = server.address();
		if (address === null || typeof address === "string") throw new Error("the proxy has no port");
		return new DropProxy(server, sockets, address.port, state);
	}

	/** The server unreachable (every open connection cut, every new one cut as it comes), or back. */
	refuse(refusing: boolean): void {
		this.state.refusing = refusing;
		if (refusing) this.dropAll();
	}

	/** Cuts every open connection; returns how many there were. */
	dropAll(): number {
		const count = this.sockets.size;
		for (const socket of this.sockets) socket.destroy();
		return count;
	}

	close(): Promise<void> {
		this.dropAll();
		return new Promise((resolve) => this.server.close(() => resolve()));
	}
}
