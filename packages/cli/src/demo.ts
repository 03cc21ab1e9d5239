import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, type OmniMessage, tool, userText } from "@omniloop/core";
import { callTool, ScriptedModel, say, think } from "@omniloop/core/testing";
import { z } from "zod";

/** A real, read-only tool: the demo's model lists the folder it runs in. */
const listDir = tool({
	name: "list_dir",
	description: "Lists the entries of the workspace folder.",
	parameters: z.object({}),
	readOnly: true,
	execute: async (_args, ctx) => readdirSync(ctx.workspaceDir).sort().join("\n"),
});

/**
 * The offline demo: a real Task through the engine, on the scripted model (no provider is
 * called), labelled as such, so a new machine shows streaming and a tool call without a key.
 */
export async function runDemo(out: NodeJS.WritableStream, workspaceDir: string): Promise<void> {
	const model = new ScriptedModel(
		[
			[think("The user wants to know what is here. I will list the folder."), callTool("list_dir")],
			(request) => {
				const listing = request.messages.findLast((m) => m.type === "tool_call_output");
				const entries = listing?.type === "tool_call_output" ? listing.output.split("\n").filter(Boolean) : [];
				const answer = `This folder holds ${entries.length} entries: ${entries.slice(0, 8).join(", ")}${entries.length > 8 ? ", …" : ""}.`;
				return [say(answer, answer.match(/.{1,12}/gs) ?? [answer])];
			},
		],
		{ id: "offline-demo:scripted", stepDelayMs: 15 },
	);
	const home = mkdtempSync(join(tmpdir(), "omniloop-demo-"));
	const agent = await createAgent({ agentId: "offline_demo", model, tools: [listDir], home });
	const session = await agent.createSession({ workspaceDir });
	out.write("omniloop — offline demo: a scripted model stands in for a real provider (no key needed).\n\n");
	out.write("you> What is in this folder?\n");
	for await (const message of session.run([userText("What is in this folder?")])) render(out, message);
	session.close();
}

function render(out: NodeJS.WritableStream, message: OmniMessage): void {
	switch (message.type) {
		case "partial_reasoning":
			out.write(`\x1b[2m${message.delta}\x1b[0m`);
			return;
		case "reasoning":
			out.write("\n");
			return;
		case "partial_text":
			out.write(message.delta);
			return;
		case "tool_call":
			out.write(`→ ${message.name}(${message.arguments})\n`);
			return;
		case "tool_call_output":
			out.write(`← ${message.status}: ${message.output.split("\n").length} lines\n`);
			return;
		case "done":
			out.write(`\n\n[done: ${message.reason}; ${message.sessionUsage.total} tokens]\n`);
			return;
		default:
			return;
	}
}
