import type { ToolSpec } from "../model/model-adapter.js";
import { type Tool, toolSpec } from "./tool.js";

/**
 * The Session's toolset. Fixed when the Session is made, so every request's tool list (and the
 * prompt-cache prefix it belongs to) stays byte-identical.
 */
export class ToolRegistry {
	private readonly byName = new Map<string, Tool>();
	/** Computed once: the same objects go into every request. */
	readonly specs: readonly ToolSpec[];

	constructor(tools: readonly Tool[]) {
		for (const t of tools) {
			if (this.byName.has(t.name)) throw new TypeError(`two tools are named "${t.name}"`);
			this.byName.set(t.name, t);
		}
		this.specs = tools.map(toolSpec);
	}

	get(name: string): Tool | undefined {
		return this.byName.get(name);
	}

	get names(): string[] {
		return [...this.byName.keys()];
	}
}
