import { useEffect, useState } from "react";

/** The time, again every `everyMs`: a countdown that ticks. */
export function useNow(everyMs: number): number {
	const [now, setNow] = useState(Date.now);
	useEffect(() => {
		const timer = setInterval(() => setNow(Date.now()), everyMs);
		return () => clearInterval(timer);
	}, [everyMs]);
	return now;
}
