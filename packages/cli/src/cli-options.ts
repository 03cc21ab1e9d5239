import type { ThinkingLevel } from "@omniloop/core";
import { InvalidArgumentError } from "commander";
import type { Shutdown } from "./shutdown.js";
import type { InputStreams } from "./terminal/line-input.js";
import type { Screen } from "./terminal/screen.js";

/** The options every command understands (commander's global options). */
export interface GlobalOptions {
	agent: string;
	model?: string;
	yes: boolean;
	json: boolean;
	/** --resume <id>; `true` (or "") when given without an id: the picker. */
	resume?: string | true;
	/** --continue: the newest Session of this folder. */
	continue: boolean;
	thinking?: ThinkingLevel;
	configDir: string;
	/** --local: run in-process even when a local server is up for this home. */
	local: boolean;
	/** Which options were typed (rather than left at their default). */
	given: { agent: boolean; configDir: boolean };
}

/** What a command runs with: where it writes and reads, its environment, its way out. */
export interface CliContext {
	screen: Screen;
	/** The raw stdout: the terminal UI draws on it. */
	stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
	streams: InputStreams;
	env: NodeJS.ProcessEnv;
	cwd: string;
	shutdown: Shutdown;
}

export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** commander's parser for --thinking: an unknown level is a usage error naming the valid ones. */
export function parseThinking(value: string): ThinkingLevel {
	const level = THINKING_LEVELS.find((known) => known === value);
	if (level === undefined) throw new InvalidArgumentError(`expected one of ${THINKING_LEVELS.join(", ")}`);
	return level;
}
