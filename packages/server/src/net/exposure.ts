import { isIP } from "node:net";

/** True for an address only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(host: string): boolean {
	const name = host.toLowerCase().replace(/^\[|\]$/g, "");
	if (name === "localhost" || name === "::1") return true;
	return isIP(name) === 4 && name.startsWith("127.");
}

/**
 * What `--host` with a non-loopback address exposes, said at start: the token is all that stands
 * between the network and a model that reads files and runs a shell in the workspace.
 */
export function exposureNotice(host: string, origin: string): string {
	return `warning: listening on ${host}, which is not a loopback address: anyone who can reach ${origin} and holds the token can use the whole API, and through its Sessions read and write the workspace's files and run its shell. Plain HTTP, so the token crosses the network readable; prefer 127.0.0.1 behind an SSH tunnel or a TLS proxy.`;
}
