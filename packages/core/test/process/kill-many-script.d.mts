import type { Tool } from "@omniloop/core";
import type { ScriptedTurn } from "@omniloop/core/testing";

/** How many turns with tool calls the script has before its answer. */
export const TURNS: number;
/** Turns of streamed text and three calls each (two read-only, one write), then an answer. */
export function script(): ScriptedTurn[];
/** The tools: each start is a line in `runs.log` in the workspace, on the real disk, before the work. */
export function tools(): Tool[];
