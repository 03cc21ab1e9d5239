import type { Hono } from "hono";
import type { AppEnv, ServerState } from "../server-state.js";

/** The configured agents, and the workspace roots: the first screen shows the folder a new Session gets by default. */
export function agentRoutes(app: Hono<AppEnv>, state: ServerState): void {
	app.get("/agents", (c) => c.json({ ...state.host.agents.describe(), workspaceRoots: state.workspaceRoots }));
}
