#!/usr/bin/env node
import { EXIT } from "./exit-codes.js";
import { runCli } from "./program.js";
import { Shutdown } from "./shutdown.js";

const shutdown = new Shutdown();

// A reader that went away (`omniloop replay … | head`) is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
	stream.on("error", (error: NodeJS.ErrnoException) => {
		if (error.code === "EPIPE") shutdown.exit(EXIT.ok);
		throw error;
	});
}

let code: number;
try {
	code = await runCli({
		argv: process.argv,
		stdout: process.stdout,
		streams: { stdin: process.stdin, stderr: process.stderr },
		env: process.env,
		cwd: process.cwd(),
		shutdown,
	});
} catch (error) {
	process.stderr.write(`omniloop: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	code = EXIT.error;
}
// stdin may still be open (a terminal, a pipe nobody closed): leave explicitly.
shutdown.exit(code);
