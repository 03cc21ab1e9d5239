// A low-level MCP server whose tools/list comes in pages of one tool, for the pagination test.
// TOOL_NAMES (comma-separated) names its tools; each one echoes its arguments.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const names = (process.env.TOOL_NAMES ?? "first,second,third").split(",");
const server = new Server({ name: "omniloop-paged-server", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async (request) => {
	const index = Number(request.params?.cursor ?? "0");
	const name = names[index];
	const tools = name === undefined ? [] : [{ name, description: `Tool ${name}.`, inputSchema: { type: "object" } }];
	const next = index + 1 < names.length ? { nextCursor: String(index + 1) } : {};
	return { tools, ...next };
});

server.setRequestHandler(CallToolRequestSchema, async (request) => ({
	content: [{ type: "text", text: `${request.params.name} ${JSON.stringify(request.params.arguments ?? {})}` }],
}));

await server.connect(new StdioServerTransport());
