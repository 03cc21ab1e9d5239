import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";

type EmbeddedResource = Extract<ContentBlock, { type: "resource" }>["resource"];

/**
 * A tool result as text for the model. Text parts are joined by newlines; parts the model cannot
 * read here (images, audio, binary resources) are summarized by type and size, so it knows they
 * exist. `structuredContent` is serialized only when there is no text part: servers that send both
 * usually repeat the same data in the text, and sending it twice costs context.
 */
export function resultText(result: CallToolResult): string {
	const parts = result.content.map(contentText);
	const hasText = result.content.some((block) => block.type === "text");
	if (!hasText && result.structuredContent !== undefined) parts.unshift(JSON.stringify(result.structuredContent));
	return parts.join("\n");
}

function contentText(block: ContentBlock): string {
	switch (block.type) {
		case "text":
			return block.text;
		case "image":
		case "audio":
			return `[${block.type}: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
		case "resource_link":
			return `[resource link: ${block.name} (${block.uri}${block.mimeType ? `, ${block.mimeType}` : ""})]`;
		case "resource":
			return resourceText(block.resource);
		default:
			// A content type newer than this SDK: say so rather than drop it silently.
			return `[${(block as { type: string }).type} content]`;
	}
}

function resourceText(resource: EmbeddedResource): string {
	if ("text" in resource) return `[resource: ${resource.uri}]\n${resource.text}`;
	return `[resource: ${resource.uri}, ${resource.mimeType ?? "binary"}, ${base64Bytes(resource.blob)} bytes]`;
}

/** The decoded size of base64 data, without decoding it. */
function base64Bytes(data: string): number {
	return Buffer.byteLength(data, "base64");
}
