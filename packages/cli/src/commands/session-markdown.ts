import type { OmniMessage } from "@omniloop/core";

const fence = (text: string, lang = "") => {
	// A fence longer than any run of backticks inside, so the text cannot close it.
	const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
	const ticks = "`".repeat(longest + 1);
	return `${ticks}${lang}\n${text}\n${ticks}`;
};

/**
 * The conversation as Markdown: what was said, each tool call with its arguments and output —
 * the same document as the web app's Export Markdown (packages/web/src/chat/export.ts).
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
