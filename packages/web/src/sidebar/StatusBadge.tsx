import type { SessionStatus } from "@omniloop/client";

const LABEL: Record<SessionStatus | "locked", string> = {
	idle: "idle",
	busy: "working",
	waiting_approval: "waiting for you",
	locked: "locked",
};

/** A Session's state in words (never by color alone). */
export function StatusBadge({ status, locked }: { status: SessionStatus; locked: boolean }) {
	const key = locked ? "locked" : status;
	return <span className={`badge badge-${key}`}>{LABEL[key]}</span>;
}
