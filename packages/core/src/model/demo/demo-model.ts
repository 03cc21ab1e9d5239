import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { isMarker, readMarker, wholeMarker } from "../../messages/markers.js";
import type { ModelMessage, ToolCallOutput } from "../../messages/omni-message.js";
import type { ModelAdapter, ModelEvent, ModelRequest } from "../model-adapter.js";
import { clip, steeringReply } from "./demo-steering.js";
import { type DemoReply, estimateUsage } from "./demo-usage.js";

/** Every answer of the demo carries this, so it is never mistaken for a real model. */
export const DEMO_LABEL = "(offline demo)";

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

/**
 * The next step of the Task, from the tool outputs it has had since its prompt: list, read, count
 * lines, count words (a second shell call, so "always" is seen to hold), then the summary.
 * Steering sent meanwhile is answered in the next reply; one that says stop ends the Task there.
 */
export function planReply(messages: readonly ModelMessage[]): DemoReply {
	const task = currentTask(messages);
	const heard = steeringReply(task.steering);
	const reply = heard.stop ? { text: summary(task) } : nextStep(task);
	return heard.note === "" ? reply : { ...reply, text: `${heard.note} ${reply.text}` };
}

function nextStep(task: DemoTask): DemoReply {
	const { prompt, outputs, shell } = task;
	const listing = outputs.get("list_dir");
	if (listing === undefined) {
		return {
			reasoning: `The user asked: "${clip(prompt, 80)}". I am a script, not a model, so I will show the tools at work: list this folder, read a file, count its lines and words.`,
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
	if (file === undefined || read?.status !== "ok") return { text: summary(task) };
	if (shell.length === 0) {
		return {
			text: "And I'll count its lines with the shell, which asks for your approval first (a: always, for the rest of this Session):",
			call: { name: "shell", args: { command: `wc -l ${shellQuote(file)}` } },
		};
	}
	if (shell.length === 1 && shell[0]?.status === "ok") {
		return {
			text: "And its words, with the shell again:",
			call: { name: "shell", args: { command: `wc -w ${shellQuote(file)}` } },
		};
	}
	return { text: summary(task) };
}

interface DemoTask {
	prompt: string;
	/** The last output of each tool since the prompt. */
	outputs: Map<string, ToolCallOutput>;
	/** The shell's outputs since the prompt, in order. */
	shell: ToolCallOutput[];
	/** Steering sent since the demo last spoke. */
	steering: string[];
}

/** The Task's prompt (the last user text that is not a system marker) and what came after it. */
function currentTask(messages: readonly ModelMessage[]): DemoTask {
	let start = 0;
	let prompt = "";
	messages.forEach((message, index) => {
		if (message.type === "user_text" && wholeMarker(message.text) === undefined) {
			start = index;
			prompt = message.text;
		}
	});
	const outputs = new Map<string, ToolCallOutput>();
	const shell: ToolCallOutput[] = [];
	let steering: string[] = [];
	for (const message of messages.slice(start)) {
		if (message.type === "tool_call_output") {
			outputs.set(message.name, message);
			if (message.name === "shell") shell.push(message);
		} else if (message.type === "assistant_text") steering = [];
		else if (message.type === "user_text") {
			if (isMarker(message.text, "user_steering")) steering.push(readMarker(message.text, "user_steering") ?? "");
		}
	}
	return { prompt, outputs, shell, steering };
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

function summary({ prompt, outputs, shell }: DemoTask): string {
	const listing = outputs.get("list_dir");
	const entries = listing === undefined ? [] : listedEntries(listing);
	const file = pickFile(entries);
	const read = outputs.get("read_file");
	const shown = entries.slice(0, 6).join(", ") + (entries.length > 6 ? ", …" : "");
	const parts = [
		`${DEMO_LABEL} Here is what the tools found: this folder has ${plural(entries.length, "entry", "entries")}${entries.length > 0 ? ` (${shown})` : ""}.`,
	];
	if (listing === undefined) parts.push("I stopped before looking at it.");
	else if (file === undefined) parts.push("There is no file in it to read.");
	else if (read === undefined) parts.push(`I stopped before reading ${file}.`);
	else if (read.status !== "ok") parts.push(`I could not read ${file}: ${clip(read.output, 120)}`);
	else {
		parts.push(`${file} begins with "${clip(firstLine(read.output), 80)}".`);
		parts.push(countSentence(shell[0], shell[1]));
	}
	parts.push(
		`With a real model configured I would answer "${clip(prompt, 60)}" properly: see "Use a real model" in the README.`,
	);
	return parts.join(" ");
}

function countSentence(lines: ToolCallOutput | undefined, words: ToolCallOutput | undefined): string {
	if (lines === undefined) return "I stopped before counting its lines.";
	if (lines.status === "denied") return "You declined the line count, so I left it out.";
	const n = lines.status === "ok" ? /^\s*(\d+)/.exec(lines.output)?.[1] : undefined;
	if (n === undefined) return `The line count did not work (${lines.status}).`;
	const lineText = `It has ${n} line${n === "1" ? "" : "s"}`;
	const w = words?.status === "ok" ? /^\s*(\d+)/.exec(words.output)?.[1] : undefined;
	if (w === undefined)
		return `${lineText}, says wc -l${words?.status === "denied" ? " (you declined the word count)" : ""}.`;
	return `${lineText} and ${w} word${w === "1" ? "" : "s"}, say wc -l and wc -w.`;
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

/** Deltas of a few words, spaces kept: streaming stays visible without making the demo slow. */
function words(text: string): string[] {
	return text.match(/(?:\s*\S+){1,3}/g) ?? [text];
}
