import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { parseMarkers } from "../../messages/markers.js";
import type { ModelMessage, ToolCallOutput } from "../../messages/omni-message.js";
import type { ModelAdapter, ModelEvent, ModelRequest } from "../model-adapter.js";

/** Every answer of the demo carries this, so it is never mistaken for a real model. */
export const DEMO_LABEL = "(offline demo)";

/** One reply of the script: some reasoning and text, then at most one tool call. */
interface DemoReply {
	reasoning?: string;
	text: string;
	call?: { name: string; args: Record<string, string> };
}

/**
 * The offline demo's model: no provider is called. For each Task it carries out a short, real
 * tool-using Task in the folder — list it, read a file, count that file's lines with the shell
 * (which asks for approval) — and answers from what the tools really returned. Replies stream a
 * word at a time with small delays, so streaming can be seen.
 */
export class DemoModel implements ModelAdapter {
	readonly id = "offline-demo";
	readonly supportsCompaction = false;

	constructor(private readonly delayMs = 25) {}

	streamGenerate(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
		const reply: DemoReply = request.purpose === "title" ? { text: "Offline demo" } : planReply(request.messages);
		return this.play(reply, request, signal);
	}

	private async *play(reply: DemoReply, request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
		try {
			if (reply.reasoning !== undefined) {
				for (const delta of words(reply.reasoning)) {
					await sleep(this.delayMs, undefined, { signal });
					yield { type: "reasoning_delta", delta };
				}
				yield { type: "reasoning", text: reply.reasoning };
			}
			for (const delta of words(reply.text)) {
				await sleep(this.delayMs, undefined, { signal });
				yield { type: "text_delta", delta };
			}
			yield { type: "text", text: reply.text };
			if (reply.call !== undefined) {
				const args = JSON.stringify(reply.call.args);
				const callId = `demo_${randomUUID()}`;
				yield { type: "tool_call_delta", callId, name: reply.call.name, delta: args };
				yield { type: "tool_call", callId, name: reply.call.name, arguments: args };
			}
		} catch {
			// Only the abort signal interrupts the sleeps.
			yield { type: "outcome", outcome: { status: "aborted" } };
			return;
		}
		yield { type: "usage", usage: estimateUsage(request, reply) };
		yield {
			type: "outcome",
			outcome: { status: "ok", finishReason: reply.call === undefined ? "stop" : "tool_calls" },
		};
	}
}

/** The next step of the Task, from the tool outputs it has had since its prompt. */
export function planReply(messages: readonly ModelMessage[]): DemoReply {
	const { prompt, outputs } = currentTask(messages);
	const listing = outputs.get("list_dir");
	if (listing === undefined) {
		return {
			reasoning: `The user asked: "${clip(prompt, 80)}". I am a script, not a model, so I will show the tools at work: list this folder, read a file, count its lines.`,
			text: `${DEMO_LABEL} I'm a scripted stand-in for a model, so instead of answering I'll show the tools at work. First, what is in this folder:`,
			call: { name: "list_dir", args: {} },
		};
	}
	const entries = listedEntries(listing);
	const file = pickFile(entries);
	const read = outputs.get("read_file");
	if (file !== undefined && read === undefined) {
		return {
			text: `${plural(entries.length, "entry", "entries")}. Now I'll read ${file}:`,
			call: { name: "read_file", args: { path: file } },
		};
	}
	const count = outputs.get("shell");
	if (file !== undefined && read?.status === "ok" && count === undefined) {
		return {
			text: "And I'll count its lines with the shell; that tool asks for your approval first:",
			call: { name: "shell", args: { command: `wc -l ${shellQuote(file)}` } },
		};
	}
	return { text: summary(prompt, entries, file, read, count) };
}

/** The Task's prompt (the last user text that is not a system marker) and the outputs after it, by tool. */
function currentTask(messages: readonly ModelMessage[]): { prompt: string; outputs: Map<string, ToolCallOutput> } {
	let start = 0;
	let prompt = "";
	messages.forEach((message, index) => {
		if (message.type === "user_text" && !isMarkerOnly(message.text)) {
			start = index;
			prompt = message.text;
		}
	});
	const outputs = new Map<string, ToolCallOutput>();
	for (const message of messages.slice(start))
		if (message.type === "tool_call_output") outputs.set(message.name, message);
	return { prompt, outputs };
}

function isMarkerOnly(text: string): boolean {
	const trimmed = text.trim();
	const blocks = parseMarkers(trimmed);
	return blocks.length === 1 && blocks[0]?.start === 0 && blocks[0].end === trimmed.length;
}

/** list_dir's lines, without its own notes (`[Folder "." is empty.]`, output-limit notes). */
function listedEntries(listing: ToolCallOutput): string[] {
	if (listing.status !== "ok") return [];
	return listing.output.split("\n").filter((line) => line !== "" && !line.startsWith("["));
}

/** README.md if there is one, else the first plain file (folders end with /, links show " -> "). */
function pickFile(entries: readonly string[]): string | undefined {
	const files = entries.filter((entry) => !entry.endsWith("/") && !entry.includes(" -> "));
	return files.find((name) => name === "README.md") ?? files.find((name) => /^readme/i.test(name)) ?? files[0];
}

function summary(
	prompt: string,
	entries: readonly string[],
	file: string | undefined,
	read: ToolCallOutput | undefined,
	count: ToolCallOutput | undefined,
): string {
	const shown = entries.slice(0, 6).join(", ") + (entries.length > 6 ? ", …" : "");
	const parts = [
		`${DEMO_LABEL} Here is what the tools found: this folder has ${plural(entries.length, "entry", "entries")}${entries.length > 0 ? ` (${shown})` : ""}.`,
	];
	if (file === undefined) parts.push("There is no file in it to read.");
	else if (read?.status !== "ok") parts.push(`I could not read ${file}: ${clip(read?.output ?? "no output", 120)}`);
	else {
		parts.push(`${file} begins with "${clip(firstLine(read.output), 80)}".`);
		parts.push(lineCountSentence(count));
	}
	parts.push(
		`With a real model configured I would answer "${clip(prompt, 60)}" properly: see "Use a real model" in the README.`,
	);
	return parts.join(" ");
}

function lineCountSentence(count: ToolCallOutput | undefined): string {
	if (count?.status === "denied") return "You declined the line count, so I left it out.";
	const lines = count?.status === "ok" ? /^\s*(\d+)/.exec(count.output)?.[1] : undefined;
	if (lines === undefined) return `The line count did not work (${count?.status ?? "not run"}).`;
	return `It has ${lines} line${lines === "1" ? "" : "s"}, says wc -l.`;
}

function plural(n: number, one: string, many: string): string {
	return `${n} ${n === 1 ? one : many}`;
}

/** read_file numbers its lines like `cat -n`: the first line without its number. */
function firstLine(output: string): string {
	return (output.split("\n")[0] ?? "").replace(/^\s*\d+\t/, "").trim();
}

function shellQuote(text: string): string {
	return /^[\w./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function clip(text: string, max: number): string {
	const line = text.replace(/\s+/g, " ").trim();
	return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Deltas of a few words, spaces kept: streaming stays visible without making the demo slow. */
function words(text: string): string[] {
	return text.match(/(?:\s*\S+){1,3}/g) ?? [text];
}

/** A rough count (4 characters a token): the demo has no tokenizer, but the usage line should not read zero. */
function estimateUsage(request: ModelRequest, reply: DemoReply) {
	const input = Math.ceil(JSON.stringify(request.messages).length / 4);
	const output = Math.ceil(((reply.reasoning ?? "").length + reply.text.length) / 4);
	return { input, output, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: input + output };
}
