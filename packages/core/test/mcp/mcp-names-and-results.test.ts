import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { mcpToolName } from "../../src/tools/mcp/index.js";
import { resultText } from "../../src/tools/mcp/mcp-result.js";
import { checkToolName } from "../../src/tools/tool.js";

describe("mcpToolName", () => {
	it("joins server and tool with __ and keeps names that already fit", () => {
		expect(mcpToolName("github", "create_issue")).toBe("github__create_issue");
		expect(mcpToolName("my-server", "Get-Thing2")).toBe("my-server__Get-Thing2");
	});

	it("replaces every character the providers refuse with _", () => {
		expect(mcpToolName("fs.local", "read file/ünïcode")).toBe("fs_local__read_file__n_code");
	});

	it("cuts long names to 64 characters ending in a hash of the whole name, the same every time", () => {
		const long = "x".repeat(80);
		const a = mcpToolName("server", `${long}a`);
		const b = mcpToolName("server", `${long}b`);
		expect(a).toHaveLength(64);
		expect(a).toMatch(/^server__x+_[0-9a-f]{8}$/);
		expect(a).not.toBe(b);
		expect(mcpToolName("server", `${long}a`)).toBe(a);
		checkToolName(a);
		expect(mcpToolName("s", "y".repeat(61))).toBe(`s__${"y".repeat(61)}`);
	});
});

describe("resultText", () => {
	const base64 = (bytes: number) => Buffer.alloc(bytes).toString("base64");

	it("joins text parts and summarizes the rest by type and size", () => {
		const result: CallToolResult = {
			content: [
				{ type: "text", text: "first" },
				{ type: "audio", mimeType: "audio/wav", data: base64(10) },
				{ type: "resource_link", uri: "file:///a.txt", name: "a.txt", mimeType: "text/plain" },
				{ type: "resource", resource: { uri: "file:///b.txt", text: "inside b" } },
				{ type: "resource", resource: { uri: "file:///c.bin", blob: base64(3), mimeType: "application/zip" } },
				{ type: "text", text: "last" },
			],
		};
		expect(resultText(result)).toBe(
			[
				"first",
				"[audio: audio/wav, 10 bytes]",
				"[resource link: a.txt (file:///a.txt, text/plain)]",
				"[resource: file:///b.txt]\ninside b",
				"[resource: file:///c.bin, application/zip, 3 bytes]",
				"last",
			].join("\n"),
		);
	});

	it("serializes structured content only when there is no text part", () => {
		expect(resultText({ content: [], structuredContent: { n: 1 } })).toBe('{"n":1}');
		expect(
			resultText({
				content: [{ type: "image", mimeType: "image/png", data: base64(4) }],
				structuredContent: { n: 1 },
			}),
		).toBe('{"n":1}\n[image: image/png, 4 bytes]');
		expect(resultText({ content: [{ type: "text", text: "n is 1" }], structuredContent: { n: 1 } })).toBe("n is 1");
	});

	it("names a content type it does not know, and is empty for no content", () => {
		const future = { content: [{ type: "hologram" }] } as unknown as CallToolResult;
		expect(resultText(future)).toBe("[hologram content]");
		expect(resultText({ content: [] })).toBe("");
	});
});
