import { useSessions } from "../app/queries.js";
import { ComposerSlot } from "../composer/ComposerSlot.js";
import { Checkpoints } from "../files/Checkpoints.js";
import { FilesChanged } from "../files/FilesChanged.js";
import { EMPTY_TRANSCRIPT } from "../transcript/model.js";
import { useChat } from "../transcript/store.js";
import { ChatHeader } from "./ChatHeader.js";
import { SessionNotices } from "./SessionNotices.js";
import { SessionIdContext } from "./session-actions.js";
import { TranscriptList } from "./TranscriptList.js";
import { useTabTitle } from "./use-tab-title.js";

/** One Session: its header, its messages, and the composer (or what takes its place). */
export function ChatView({ sessionId }: { sessionId: string }) {
	const sessions = useSessions();
	const session = sessions.data?.find((s) => s.id === sessionId);
	const transcript = useChat((s) => s.transcripts[sessionId]) ?? EMPTY_TRANSCRIPT;
	useTabTitle(session);
	if (sessions.isSuccess && session === undefined) {
		return (
			<section className="chat missing" aria-label="Chat">
				<p>
					There is no Session <code>{sessionId}</code> on this server (it may have been deleted).{" "}
					<a href="#/">Start a new one</a>.
				</p>
			</section>
		);
	}
	return (
		<section className="chat" aria-label="Chat">
			<ChatHeader sessionId={sessionId} session={session} transcript={transcript} />
			<SessionNotices key={sessionId} sessionId={sessionId} lastSeq={transcript.running ? -1 : transcript.lastSeq} />
			<SessionIdContext.Provider value={sessionId}>
				<div className="workspace-panels">
					<FilesChanged sessionId={sessionId} lastSeq={transcript.lastSeq} />
					<Checkpoints sessionId={sessionId} lastSeq={transcript.lastSeq} items={transcript.items} />
				</div>
				<TranscriptList sessionId={sessionId} transcript={transcript} />
			</SessionIdContext.Provider>
			<ComposerSlot sessionId={sessionId} session={session} transcript={transcript} />
		</section>
	);
}
