import type { Checkpoint } from "../../checkpoints/checkpoint-meta.js";
import { CheckpointError } from "../../checkpoints/git-runner.js";
import type { RestoreOptions, RestoreResult, SessionCheckpoints } from "../../checkpoints/session-checkpoints.js";
import { loadInstructions, withInstructions } from "../../instructions/project-instructions.js";
import { makeMessage } from "../../messages/constructors.js";
import type {
	CheckpointCreated,
	CheckpointRestored,
	InstructionsLoaded,
	SessionRewound,
} from "../../messages/omni-message.js";
import { checkpointAt } from "../history/files-at.js";
import type { SessionState } from "../loop-types.js";
import { RunInputError } from "./errors.js";
import { recordEvent } from "./session-events.js";

/** A restore done: what it did, and the events it recorded (the checkpoint before it, then the restore). */
export interface RestoreDone extends RestoreResult {
	events: [CheckpointCreated, CheckpointRestored];
}

/** What `session.rewind` also restores besides the conversation: the files, if asked. */
export interface RewindOptions {
	/** Restore the files too, to the checkpoint made after that message (default false). */
	files?: boolean;
	/** With `files`: restore files changed outside the agent too. */
	overwrite?: boolean;
}

/** What `session.rewind` did: its `session_rewound` event, and the files' restore if any. */
export interface RewindDone {
	/** The restore of the files, when asked for and there was anything to restore. */
	restore?: RestoreDone;
	event: SessionRewound;
}

export function checkpointsOf(state: SessionState): SessionCheckpoints {
	if (state.checkpoints === undefined) {
		throw new CheckpointError(
			`Session ${state.sessionId} keeps no checkpoints (checkpoints.enabled is false in omniloop.yaml, or it is a subagent's)`,
			"disabled",
		);
	}
	return state.checkpoints;
}

/** Restores the workspace to checkpoint `id`, the files as they are checkpointed first. */
export async function restoreFiles(
	state: SessionState,
	id: string | Checkpoint,
	options: RestoreOptions,
): Promise<RestoreDone> {
	const { result, before } = await checkpointsOf(state).restore(id, state.seq, options);
	const events: RestoreDone["events"] = [
		recordEvent(state, createdEvent(before)),
		recordEvent(state, restoredEvent(result)),
	];
	await shipped(state);
	return { ...result, events };
}

/** The last turn's changes undone: a restore to its checkpoint (again: the turn before the last undo). */
export async function undoFiles(state: SessionState, options: RestoreOptions): Promise<RestoreDone> {
	const target = await checkpointsOf(state).undoTarget();
	if (target === undefined)
		throw new CheckpointError(`Session ${state.sessionId} has no turn left to undo`, "nothing_to_undo");
	return restoreFiles(state, target.id, options);
}

/**
 * Takes the conversation back to before the person's message `seq` (one in the current
 * context): recorded as an event, so a resume and a replay rebuild the same context.
 */
export async function rewindSession(state: SessionState, seq: number, options: RewindOptions): Promise<RewindDone> {
	const at = state.context.findIndex((m) => m.type === "user_text" && m.seq === seq);
	const message = state.context[at];
	if (message === undefined) {
		throw new RunInputError(
			`rewind(${seq}): seq ${seq} is not a person's message in Session ${state.sessionId}'s context (since its last compaction)`,
		);
	}
	let restore: RestoreDone | undefined;
	if (options.files === true) {
		// In a fork, a message of its inherited history has its files in the parent's checkpoints.
		const checkpoint = await checkpointAt(checkpointsOf(state), seq, message.id);
		if (checkpoint !== undefined) {
			restore = await restoreFiles(state, checkpoint, { overwrite: options.overwrite ?? false });
		}
	}
	const event = recordEvent(state, makeMessage("session_rewound", { toSeq: seq }));
	state.context = state.context.slice(0, at);
	state.carryOver = [];
	state.unfinished = undefined;
	state.compaction.justCompacted = false;
	await shipped(state);
	return { ...(restore === undefined ? {} : { restore }), event };
}

/** Reads the project instructions again; from the next request on, the system prompt carries them. */
export async function reloadInstructions(state: SessionState): Promise<InstructionsLoaded> {
	const instructions = loadInstructions(state.instructionSources);
	state.instructions = instructions;
	state.system = withInstructions(state.baseSystem, instructions);
	// A Trace file begun by a later compaction starts with these.
	state.traceHeader = { ...state.traceHeader, instructions };
	const event = recordEvent(
		state,
		makeMessage("instructions_loaded", { files: instructions.files, text: instructions.text }),
	);
	await shipped(state);
	return event;
}

/** A host that copies the Trace elsewhere (TraceShipHook) has the events before the call returns. */
async function shipped(state: SessionState): Promise<void> {
	await state.shipTrace?.(state.sessionId);
}

export function createdEvent(checkpoint: Checkpoint): CheckpointCreated {
	return makeMessage("checkpoint_created", {
		checkpointId: checkpoint.id,
		reason: checkpoint.reason,
		skipped: checkpoint.skipped,
	});
}

function restoredEvent(result: RestoreResult): CheckpointRestored {
	return makeMessage("checkpoint_restored", { ...result });
}
