// A small MCP server over stdio for the tests. With PID_FILE in its env it writes its pid there,
// so a test can check the process is gone after close().
import { writeFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

if (process.env.PID_FILE) writeFileSync(process.env.PID_FILE, String(process.pid));

const server = new McpServer({ name: "omniloop-test-server", version: "1.0.0" });
let cancelledSlowCalls = 0;

server.registerTool(
	"add",
	{
		description: "Adds two numbers.",
		inputSchema: { a: z.number(), b: z.number() },
		annotations: { readOnlyHint: true },
	},
	async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
);

server.registerTool(
	"fail",
	{ description: "Always fails.", inputSchema: { reason: z.string() } },
	async ({ reason }) => ({ isError: true, content: [{ type: "text", text: `refused: ${reason}` }] }),
);

server.registerTool(
	"slow",
	{ description: "Waits `ms` milliseconds, reporting progress first.", inputSchema: { ms: z.number() } },
	async ({ ms }, extra) => {
		const progressToken = extra._meta?.progressToken;
		if (progressToken !== undefined) {
			await extra.sendNotification({
				method: "notifications/progress",
				params: { progressToken, progress: 0, total: 1, message: "started waiting" },
			});
		}
		await new Promise((resolve) => {
			const timer = setTimeout(resolve, ms);
			extra.signal.addEventListener("abort", () => {
				clearTimeout(timer);
				cancelledSlowCalls += 1;
				resolve();
			});
		});
		return { content: [{ type: "text", text: `waited ${ms} ms` }] };
	},
);

server.registerTool(
	"cancelled",
	{ description: "How many slow calls the client cancelled.", annotations: { readOnlyHint: true } },
	async () => ({ content: [{ type: "text", text: String(cancelledSlowCalls) }] }),
);

server.registerTool("picture", { description: "Returns an image and a caption." }, async () => ({
	content: [
		{ type: "text", text: "a red dot" },
		{ type: "image", mimeType: "image/png", data: Buffer.alloc(1234, 7).toString("base64") },
	],
}));

server.registerTool(
	"measure",
	{
		description: "Returns structured content only.",
		inputSchema: { text: z.string() },
		outputSchema: { length: z.number() },
	},
	async ({ text }) => ({ content: [], structuredContent: { length: text.length } }),
);

server.registerTool("dotted.name", { description: "A name that needs sanitizing." }, async () => ({
	content: [{ type: "text", text: "dotted" }],
}));

await server.connect(new StdioServerTransport());
