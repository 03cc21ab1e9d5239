import fc from "fast-check";

/** The random schedules of crashes.property.test.ts. */

export interface CallPlan {
	readOnly: boolean;
	/** Work before the tool finishes: microtask hops, or a real timer when `timer` is set. */
	ticks: number;
	timer: boolean;
	allow: boolean;
}

/** Where one process's life ends, and how the next one takes over. */
export interface CrashPoint {
	/** After the n-th message read, or inside the n-th approve call. */
	at: "message" | "approve";
	n: number;
	/** Cut the newest file's last line at this fraction of its bytes. */
	tear: number | undefined;
	/** After the resume: a new Task, or `continueTask` when the crash cut one off. */
	follow: "run" | "continue";
}

export interface CrashSchedule {
	turns: { text: string[]; calls: CallPlan[] }[];
	/** One or two crashes: the second lands in the life that resumed from the first. */
	crashes: CrashPoint[];
	compaction: { every: number; mode: "summarize" | "discard" } | undefined;
	/** The model repeats call ids (as some servers do), so ids before a crash come back after it. */
	repeatIds: boolean;
}

const crashPoint: fc.Arbitrary<CrashPoint> = fc.record({
	at: fc.oneof({ weight: 4, arbitrary: fc.constant("message" as const) }, fc.constant("approve" as const)),
	n: fc.integer({ min: 1, max: 50 }),
	tear: fc.option(fc.double({ min: 0, max: 0.99, noNaN: true }), { nil: undefined, freq: 3 }),
	follow: fc.constantFrom("run" as const, "continue" as const),
});

export const crashSchedule: fc.Arbitrary<CrashSchedule> = fc.record({
	turns: fc.array(
		fc.record({
			text: fc.array(fc.constantFrom("a", "bc", "def "), { maxLength: 3 }),
			calls: fc.array(
				fc.record({
					readOnly: fc.boolean(),
					ticks: fc.nat({ max: 20 }),
					timer: fc.nat({ max: 9 }).map((n) => n < 2),
					allow: fc.nat({ max: 4 }).map((n) => n > 0),
				}),
				{ minLength: 1, maxLength: 4 },
			),
		}),
		{ minLength: 1, maxLength: 3 },
	),
	// An approve point counts approvals from 0; a message point counts messages from 1.
	crashes: fc.array(
		crashPoint.map((p) => (p.at === "approve" ? { ...p, n: p.n % 4 } : p)),
		{ minLength: 1, maxLength: 2 },
	),
	compaction: fc.option(
		fc.record({
			every: fc.integer({ min: 1, max: 2 }),
			mode: fc.constantFrom("summarize" as const, "discard" as const),
		}),
		{ nil: undefined, freq: 3 },
	),
	repeatIds: fc.nat({ max: 3 }).map((n) => n === 0),
});

/** The plan of a call id, a renamed repeat (`c0_2`) included. */
export function planOf(plans: ReadonlyMap<string, CallPlan>, callId: string): CallPlan {
	return plans.get(callId.replace(/_\d+$/, "")) as CallPlan;
}
