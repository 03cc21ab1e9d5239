import type { SandboxLayout } from "./bubblewrap.js";

const WRITE_REFUSED = /Read-only file system|EROFS/;
const MISSING = /No such file or directory|ENOENT/;
const DENIED = /Permission denied|EACCES|Operation not permitted|EPERM/;
const NETWORK_REFUSED =
	/omniloop sandbox: .* is not an allowed host|CONNECT tunnel failed|Could not resolve host|Couldn't connect to server|Failed to connect|Connection refused|Network is unreachable|ECONNREFUSED|ENETUNREACH|EAI_AGAIN|ENOTFOUND|getaddrinfo|Temporary failure in name resolution|fetch failed|Name or service not known/;

/**
 * A line for the model when a sandboxed command's output shows the sandbox refused something (a
 * write outside the writable folders, the home, the network), so it knows why and does not retry
 * blindly; undefined when nothing in the output looks like a refusal. The errors are the OS's own
 * words, so this is a reading of the output, said as such.
 */
export function refusalNote(
	output: string,
	command: string,
	layout: SandboxLayout,
	network: readonly string[],
): string | undefined {
	const refused: string[] = [];
	if (WRITE_REFUSED.test(output)) refused.push("a write outside the writable folders");
	const home = layout.home;
	if (home !== undefined && DENIED.test(output) && (output.includes(home) || command.includes(home))) {
		refused.push("a read of the omniloop home");
	}
	if (NETWORK_REFUSED.test(output)) refused.push("a network connection");
	// The workspace and $TMPDIR may sit inside a covered folder: their own missing files are not refusals.
	const named = `${output}\n${command}`.replaceAll(layout.workspaceDir, "").replaceAll(layout.tempDir, "");
	const covered = layout.covered.filter((dir) => named.includes(dir));
	if (covered.length > 0 && MISSING.test(output)) {
		refused.push(`a path in ${covered.join(", ")}, which the sandbox shows empty but for $TMPDIR`);
	}
	if (refused.length === 0) return undefined;
	const writable =
		layout.mode === "workspace-write"
			? `the workspace (${layout.workspaceDir}) and $TMPDIR (${layout.tempDir})`
			: `only $TMPDIR (${layout.tempDir})`;
	const reach =
		network.length === 0
			? "have no network"
			: `reach only ${network.join(", ")} (HTTP and HTTPS, through the proxy in $HTTPS_PROXY)`;
	return (
		`[sandbox ${layout.mode}: this looks refused by the sandbox (${refused.join("; ")}). ` +
		`Commands here may write in ${writable}, read everything but the omniloop home${layout.covered.map((dir) => `, ${dir}`).join("")}, and ${reach}. ` +
		"Do not retry it another way; if it is needed, say so to the person.]"
	);
}
