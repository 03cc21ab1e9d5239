// The script and tools shared by kill-many-child.mjs and kill-at-random.test.ts (plain JS, so
// the child, which runs the built package, and the test, which runs the sources, use the same).
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { tool } from "@omniloop/core";
import { callTool, reportUsage, say } from "@omniloop/core/testing";
import { z } from "zod";

export const TURNS = 4;

/** Turns of streamed text and three calls each (two read-only, one write), then an answer. */
export function script() {
	const turns = [];
	for (let t = 0; t < TURNS; t++) {
		const chunks = Array.from({ length: 12 }, (_, i) => `t${t}w${i} `);
		turns.push([
			say(chunks.join(""), chunks),
			callTool("note", { n: t * 3 }, `t${t}a`),
			callTool("append", { n: t * 3 + 1 }, `t${t}b`),
			callTool("note", { n: t * 3 + 2 }, `t${t}c`),
			reportUsage({ input: 100 + t, output: 10 + t }),
		]);
	}
	turns.push([say("all done"), reportUsage({ input: 200, output: 5 })]);
	return turns;
}

/** The tools: each start is a line in `runs.log`, on the real disk, before the work. */
export function tools() {
	const work =
		(readOnly) =>
		async ({ n }, ctx) => {
			appendFileSync(join(ctx.workspaceDir, "runs.log"), `${ctx.callId}\n`);
			await new Promise((resolve) => setTimeout(resolve, 3 + (n % 4) * 4));
			return `${readOnly ? "noted" : "appended"} ${n}`;
		};
	const parameters = z.object({ n: z.number() });
	return [
		tool({ name: "note", description: "Notes a number.", parameters, readOnly: true, execute: work(true) }),
		tool({ name: "append", description: "Appends a number.", parameters, execute: work(false) }),
	];
}
