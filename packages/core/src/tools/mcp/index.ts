export type { McpServerConfig } from "./mcp-connection.js";
export { McpStartError, McpToolCallError } from "./mcp-errors.js";
export {
	type McpConnections,
	type McpServerFailure,
	type McpStartOptions,
	startMcpServers,
} from "./mcp-servers.js";
export { mcpToolName } from "./mcp-tool-name.js";
