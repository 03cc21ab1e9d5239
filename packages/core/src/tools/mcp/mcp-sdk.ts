import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport, StdioServerParameters } from "@modelcontextprotocol/sdk/client/stdio.js";

/** A stdio transport that remembers its child's pid (see `loadMcpSdk`). */
export interface PidKeepingTransport extends StdioClientTransport {
	spawnedPid: number | undefined;
}

/** The parts of the MCP SDK a connection uses. */
export interface McpSdk {
	newClient(info: { name: string; version: string }): Client;
	newTransport(parameters: StdioServerParameters): PidKeepingTransport;
}

let loading: Promise<McpSdk> | undefined;

/**
 * The MCP SDK, loaded the first time a Session starts an MCP server: most Sessions have none,
 * and the SDK is one of the heaviest modules omniloop depends on.
 */
export function loadMcpSdk(): Promise<McpSdk> {
	loading ??= (async () => {
		const [{ Client: ClientClass }, { StdioClientTransport: Transport }] = await Promise.all([
			import("@modelcontextprotocol/sdk/client/index.js"),
			import("@modelcontextprotocol/sdk/client/stdio.js"),
		]);
		/**
		 * Remembers the child's pid: the SDK's transport forgets it as soon as it starts closing,
		 * which the Client does by itself when `initialize` fails, yet the process may still run.
		 */
		class PidKeeping extends Transport implements PidKeepingTransport {
			spawnedPid: number | undefined;

			override async start(): Promise<void> {
				await super.start();
				this.spawnedPid = this.pid ?? undefined;
			}
		}
		return {
			newClient: (info) => new ClientClass(info, { capabilities: {} }),
			newTransport: (parameters) => new PidKeeping(parameters),
		};
	})();
	return loading;
}
