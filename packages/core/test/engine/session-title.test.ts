import { afterEach, describe, expect, it } from "vitest";
import { SessionNotFoundError } from "../../src/engine/session/errors.js";
import { say } from "../../src/model/scripted.js";
import { listSessions } from "../../src/session-store/session-index.js";
import { renameSession, TitleError } from "../../src/session-store/session-title.js";
import { cleanup, harness, runText } from "../harness.js";

afterEach(cleanup);

describe("renaming a Session", () => {
	it("keeps the trimmed title beside the Trace: the list shows it in place of the first prompt", async () => {
		const { session, agent } = await harness([[say("hi")]]);
		await runText(session, "the first prompt");
		expect(renameSession(agent.home, session.id, "  Lisbon trip  ")).toBe("Lisbon trip");
		expect(listSessions(agent.home)[0]?.title).toBe("Lisbon trip");
		// 200 characters (after trimming) is the most; emoji count as one each.
		expect(renameSession(agent.home, session.id, ` ${"🙂".repeat(200)} `)).toBe("🙂".repeat(200));
	});

	it("refuses an empty or over-long title and an unknown Session, naming what was wrong; the title stays", async () => {
		const { session, agent } = await harness([[say("hi")]]);
		await runText(session, "first");
		renameSession(agent.home, session.id, "Kept");
		expect(() => renameSession(agent.home, session.id, "   ")).toThrow(TitleError);
		expect(() => renameSession(agent.home, session.id, "   ")).toThrow(/^title: empty/);
		expect(() => renameSession(agent.home, session.id, "x".repeat(201))).toThrow(
			"title: 201 characters; at most 200 after trimming",
		);
		expect(() => renameSession(agent.home, "no-such-session", "A title")).toThrow(SessionNotFoundError);
		expect(listSessions(agent.home)[0]?.title).toBe("Kept");
	});
});
