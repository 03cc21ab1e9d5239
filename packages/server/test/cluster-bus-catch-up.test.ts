import { createGate, ScriptedModel } from "@omniloop/core/testing";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BUS_CHANNEL } from "../src/cluster/events/bus-relay.js";
import { Notifications } from "../src/cluster/events/notifications.js";
import { isType, type SseFrame, sseReader, startServer, tempDirs } from "./harness.js";
import { freshDatabase } from "./pg-database.js";

/** A direct client LISTENing on the bus: what the servers NOTIFY, as Postgres delivers it. */
async function busListener(database: string) {
	const client = new pg.Client({ connectionString: database });
	await client.connect();
	const payloads: string[] = [];
	const waiters: (() => void)[] = [];
	client.on("notification", (n) => {
		payloads.push(n.payload ?? "");
		for (const wake of waiters.splice(0)) wake();
	});
	await client.query(`listen ${BUS_CHANNEL}`);
	return {
		/** How many payloads came so far: `until` can look only at those after. */
		seen: () => payloads.length,
		/** Until a payload from the `from`-th on matches (one sent earlier, say at the Session's making, does not count). */
		async until(match: (payload: string) => boolean, from = 0): Promise<void> {
			while (!payloads.slice(from).some(match)) await new Promise<void>((resolve) => waiters.push(resolve));
		},
		query: (text: string, values: unknown[]) => client.query(text, values),
		close: () => client.end(),
	};
}

/** A frame telling this Session's status (an event, or the Session's row in a snapshot). */
function statusIs(sessionId: string, status: string) {
	return (frame: SseFrame): boolean => {
		const event = JSON.parse(frame.data) as {
			type: string;
			sessionId?: string;
			status?: string;
			sessions?: { id: string; status: string }[];
		};
		if (event.type === "session_status") return event.sessionId === sessionId && event.status === status;
		if (event.type === "sessions_snapshot")
			return event.sessions?.some((s) => s.id === sessionId && s.status === status) ?? false;
		return false;
	};
}

afterEach(() => {
	vi.restoreAllMocks();
});

describe("the bus between servers on one Postgres, across a lost LISTEN connection", () => {
	it("a tab on B learns that a Task on A ended while B's LISTEN connection was down", async () => {
		// Every process's LISTEN connection, in the order they start; B's reconnect waits for `reconnect`.
		const instances: Notifications[] = [];
		const reconnect = createGate();
		let reconnecting!: () => void;
		const reconnectTried = new Promise<void>((resolve) => {
			reconnecting = resolve;
		});
		const start = Notifications.prototype.start;
		vi.spyOn(Notifications.prototype, "start").mockImplementation(async function (this: Notifications) {
			if (!instances.includes(this)) instances.push(this);
			else if (this === instances[1]) {
				reconnecting();
				await reconnect.wait();
			}
			return start.call(this);
		});

		const gate = createGate();
		const database = await freshDatabase();
		const dirs = tempDirs();
		const model = new ScriptedModel([
			[
				{ type: "text", text: "working" },
				{ type: "gate", gate },
				{ type: "text", text: " done" },
			],
		]);
		const a = await startServer({ database, model }, dirs);
		const b = await startServer({ database, model: new ScriptedModel([]) }, dirs);
		expect(instances).toHaveLength(2);
		const bus = await busListener(database);
		try {
			const id = await a.createSession();
			// A second Session, read on B, is deleted on A while B is cut off.
			const gone = await a.createSession();
			const goneOnB = sseReader(await b.api(`/chat/sessions/${gone}/events`));
			const viewer = sseReader(await b.api("/events"));
			await viewer.until(isType("sessions_snapshot"));
			const onA = sseReader(await a.api(`/chat/sessions/${id}/messages`, { method: "POST", json: { text: "go" } }));
			await viewer.until(statusIs(id, "busy"));

			// B's LISTEN connection goes; its reconnect waits until A's Task has ended and said so.
			const listening = await instances[1]?.connection?.query<{ pid: number }>("select pg_backend_pid() as pid");
			const pid = listening?.rows[0]?.pid;
			expect(pid).toBeTypeOf("number");
			await bus.query("select pg_terminate_backend($1)", [pid]);
			await reconnectTried;
			expect((await a.api(`/chat/sessions/${gone}`, { method: "DELETE" })).status).toBe(204);
			const beforeEnd = bus.seen();
			gate.release();
			await onA.until(isType("done"));
			await onA.close();
			await bus.until((payload) => payload.includes(id) && payload.includes('"status":"idle"'), beforeEnd);
			expect(await (await b.api(`/chat/sessions/${id}`)).json()).toMatchObject({ session: { status: "idle" } });

			reconnect.release();
			// Without a catch-up the notification is lost for good, and this waits forever.
			await viewer.until(statusIs(id, "idle"));
			await viewer.close();
			// The deleted one is forgotten on B as its session_deleted would have had it: its stream ends.
			await goneOnB.rest();
			expect((await b.api(`/chat/sessions/${gone}`)).status).toBe(404);
		} finally {
			reconnect.release();
			await bus.close();
		}
	});
});
