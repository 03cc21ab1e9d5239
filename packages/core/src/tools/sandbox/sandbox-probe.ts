import { execFile } from "node:child_process";
import { platform } from "node:process";
import { ISOLATION_ARGS } from "./bubblewrap.js";

/** The bubblewrap binary a host uses: `$OMNILOOP_BWRAP`, or `bwrap` on the PATH (docs/sandbox.md). */
export function bubblewrapPath(env: NodeJS.ProcessEnv): string {
	const configured = env.OMNILOOP_BWRAP;
	return configured !== undefined && configured !== "" ? configured : "bwrap";
}

export type SandboxSupport = { available: true } | { available: false; reason: string };

const probes = new Map<string, Promise<SandboxSupport>>();

/**
 * Whether this machine can run a sandboxed command: bubblewrap starts a `true` with every
 * namespace the sandbox uses. Asked once per binary per process (the answer does not change while
 * it runs). Never rejects.
 */
export function sandboxSupport(bwrap: string): Promise<SandboxSupport> {
	let probe = probes.get(bwrap);
	if (probe === undefined) {
		probe = platform === "linux" ? probeBubblewrap(bwrap) : Promise.resolve(unsupportedPlatform());
		probes.set(bwrap, probe);
	}
	return probe;
}

function probeBubblewrap(bwrap: string): Promise<SandboxSupport> {
	const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", ...ISOLATION_ARGS, "--", "true"];
	return new Promise((resolve) => {
		execFile(bwrap, args, { timeout: 30_000 }, (error, _stdout, stderr) => {
			if (error === null) return resolve({ available: true });
			const code = (error as NodeJS.ErrnoException).code;
			if (code === "ENOENT") {
				return resolve({
					available: false,
					reason: `bubblewrap is not installed (no ${bwrap}; on Debian or Ubuntu: apt-get install bubblewrap)`,
				});
			}
			const said = stderr.trim().split("\n")[0] ?? "";
			resolve({
				available: false,
				reason: `bubblewrap (${bwrap}) could not start a sandbox: ${said || error.message} (are user namespaces allowed?)`,
			});
		});
	});
}

function unsupportedPlatform(): SandboxSupport {
	const where = platform === "darwin" ? "macOS (sandbox-exec is not supported yet)" : platform;
	return { available: false, reason: `no sandbox for the shell on ${where}: only Linux's bubblewrap is supported` };
}
