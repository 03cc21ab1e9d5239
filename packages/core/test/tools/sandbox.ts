import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CommandSandbox } from "../../src/tools/sandbox/command-sandbox.js";
import type { Tool, ToolContext, ToolResult } from "../../src/tools/tool.js";
import { detachedTaskHooks } from "../../src/tools/tool.js";

/**
 * A real temporary folder holding a workspace, a folder beside it that must never be touched
 * ("outside"), and the Session's folder. Paths are real paths, so they compare with tool output.
 */
export interface Sandbox {
	root: string;
	workspace: string;
	outside: string;
	sessionDir: string;
	/** A ToolContext for this sandbox; `controller` aborts it. */
	context(callId?: string): { ctx: ToolContext; controller: AbortController };
	/** Writes a file under the workspace, creating folders. */
	write(relative: string, content: string | Uint8Array): string;
	cleanup(): void;
}

export function makeSandbox(): Sandbox {
	const root = realpathSync(mkdtempSync(path.join(tmpdir(), "omniloop-tools-")));
	const workspace = path.join(root, "ws");
	const outside = path.join(root, "outside");
	const sessionDir = path.join(root, "session");
	for (const dir of [workspace, outside, sessionDir]) mkdirSync(dir);
	return {
		root,
		workspace,
		outside,
		sessionDir,
		context(callId = "call_1") {
			const controller = new AbortController();
			const ctx: ToolContext = {
				signal: controller.signal,
				callId,
				workspaceDir: workspace,
				sessionDir,
				sandbox: CommandSandbox.unconfined(),
				progress: () => {},
				endTask: () => {},
				task: detachedTaskHooks(),
			};
			return { ctx, controller };
		},
		write(relative, content) {
			const file = path.join(workspace, relative);
			mkdirSync(path.dirname(file), { recursive: true });
			writeFileSync(file, content);
			return file;
		},
		cleanup() {
			rmSync(root, { recursive: true, force: true });
		},
	};
}

/**
 * Calls a tool the way the engine does: its argument check first (which must accept), then execute.
 * Returns the text the model would see.
 */
export async function call<Args>(t: Tool<Args>, raw: unknown, ctx: ToolContext): Promise<string> {
	const checked = t.checkArguments(raw);
	if (!checked.ok) throw new Error(`test bug: ${t.name} refused its arguments: ${checked.problems}`);
	const result: ToolResult = await t.execute(checked.value, ctx);
	if (typeof result !== "string") throw new Error(`${t.name} returned JSON, expected text`);
	return result;
}
