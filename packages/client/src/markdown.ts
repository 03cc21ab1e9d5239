import type { OmniMessage } from "./wire/messages.js";

/** A code fence longer than any run of backticks inside, so the text cannot close it. */
function fence(text: string, lang = ""): string {
	const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
	const ticks = "`".repeat(longest + 1);
	return `${ticks}${lang}\n${text}\n${ticks}`;
}

/**
 * A Session's conversation as Markdown: what the person and the agent said, each tool call with its
 * arguments and output (a subagent's messages left out). The web app's Export Markdown and the
 * CLI's `sessions export --format md` both write this document.
 */
export function markdownOf(title: string, messages: readonly OmniMessage[]): string {
	const parts = [`# ${title}`];
	for (const m of messages) {
		if (m.origin !== undefined) continue;
		if (m.type === "user_text") parts.push(`## You\n\n${m.text}`);
		else if (m.type === "assistant_text") parts.push(`## Agent\n\n${m.text}`);
		else if (m.type === "tool_call") parts.push(`### Tool call: ${m.name}\n\n${fence(m.arguments, "json")}`);
		else if (m.type === "tool_call_output") parts.push(`Output (${m.status}):\n\n${fence(m.output)}`);
	}
	return `${parts.join("\n\n")}\n`;
}
