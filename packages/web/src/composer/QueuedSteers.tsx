import { useChat } from "../transcript/store.js";

const NONE: never[] = [];

/** The steers of a Session sent but not yet read by the model: under the composer, or under an approval card. */
export function QueuedSteers({ sessionId }: { sessionId: string }) {
	const queued = useChat((s) => s.queuedSteers[sessionId] ?? NONE);
	if (queued.length === 0) return null;
	return (
		<ul className="queued" aria-label="Queued steers">
			{queued.map((s) => (
				<li key={s.id}>
					<span className="tag">queued steer</span> {s.text}
				</li>
			))}
		</ul>
	);
}
