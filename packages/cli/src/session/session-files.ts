import type {
	Agent,
	Checkpoint,
	FileChange,
	InstructionFileInfo,
	LeftOutFile,
	OmniMessage,
	RestoreOptions,
	RewindOptions,
	Session,
	UserText,
} from "@omniloop/core";
import { isPersonsMessage } from "@omniloop/core/internal";

/**
 * What the file commands (commands/file-commands.ts, docs/checkpoints.md) need of a Session,
 * wherever it runs: in-process (the core Session) or on the local server (remote/remote-files.ts).
 * A restore, an undo, a rewind and a reload resolve with the events they recorded, to show.
 */
export interface SessionFiles {
	checkpoints(): Promise<readonly Checkpoint[]>;
	/** What restoring checkpoint `id` would change, a file changed outside the agent since marked `conflict`. */
	checkpointDiff(id: string): Promise<readonly FileChange[]>;
	/** The checkpoint an undo would restore; undefined when no turn is left to undo. */
	undoTarget(): Promise<Checkpoint | undefined>;
	undo(options: RestoreOptions): Promise<readonly OmniMessage[]>;
	restore(id: string, options: RestoreOptions): Promise<readonly OmniMessage[]>;
	filesChanged(): Promise<readonly FileChange[]>;
	/** The person's messages in the context (since its last compaction): what a rewind or a fork goes back to. */
	personMessages(): Promise<readonly UserText[]>;
	rewind(seq: number, options: RewindOptions): Promise<readonly OmniMessage[]>;
	/**
	 * A new Session with the history before `seq` (its files in `workspaceDir` when given); resolves
	 * with its id and the parent's files its folder did not get.
	 */
	fork(seq: number, workspaceDir: string | undefined): Promise<{ id: string; leftOut: readonly LeftOutFile[] }>;
	instructions(): Promise<readonly InstructionFileInfo[]>;
	reloadInstructions(): Promise<readonly OmniMessage[]>;
}

/** The file commands on a Session this process holds. */
export function localFiles(agent: Agent, session: Session): SessionFiles {
	return {
		checkpoints: () => session.checkpoints(),
		checkpointDiff: (id) => session.checkpointDiff(id),
		undoTarget: () => session.undoTarget(),
		undo: async (options) => (await session.undo(options)).events,
		restore: async (id, options) => (await session.restore(id, options)).events,
		filesChanged: () => session.filesChanged(),
		personMessages: async () => session.context.filter(isPersonsMessage),
		rewind: async (seq, options) => {
			const done = await session.rewind(seq, options);
			return [...(done.restore?.events ?? []), done.event];
		},
		fork: async (seq, workspaceDir) => {
			const fork = await agent.forkSession(session.id, seq, workspaceDir === undefined ? {} : { workspaceDir });
			await fork.close();
			return { id: fork.id, leftOut: fork.leftOut };
		},
		instructions: async () => session.instructions,
		reloadInstructions: async () => [await session.reloadInstructions()],
	};
}
