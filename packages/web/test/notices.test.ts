import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionDir, traceFileName } from "@omniloop/core/internal";
import { describe, expect, it } from "vitest";
import { lockHolder } from "../../server/test/sqlite-lock-holder.js";
import { newSession, onCleanup, send, startApp, waitIdle } from "./harness.js";

describe("what the server could not keep, shown without stopping the chat", { timeout: 60_000 }, () => {
	it("a store_error frame (the store locked) shows a notice; the Task still ends and the notice can be dismissed", async () => {
		const app = await startApp({ server: { storeBusyMs: 200 } });
		const page = await app.open();
		await newSession(page);
		const lock = await lockHolder(join(app.home, "omniloop.db"), onCleanup);
		app.reply({ text: "Answered anyway.", usage: { input: 12, output: 3 } });
		await send(page, "hello");
		const notice = page.getByRole("status", { name: "Not saved" });
		await notice.getByText("The server could not save a usage record").waitFor();
		expect(await notice.textContent()).toContain("it is kept and tried again. The chat goes on.");
		await page.getByText("Answered anyway.").waitFor();
		await lock.release();
		await waitIdle(page);
		await notice.getByRole("button", { name: "Dismiss" }).click();
		await notice.waitFor({ state: "detached" });
	});

	it("a Session whose Trace has a damaged line says so, and goes on taking messages", async () => {
		const first = await startApp();
		const page = await first.open();
		const id = await newSession(page);
		first.reply({ text: "first answer" });
		await send(page, "go");
		await waitIdle(page);
		// Closed first: the server's last Trace lines may still be on their way when the page shows
		// the Session idle, and a copy read before them would drop them when written back.
		await first.server.close();
		const path = join(sessionDir(first.home, id), traceFileName(1));
		const lines = readFileSync(path, "utf8").split("\n");
		const at = lines.findIndex((line) => line.includes('"type":"request_begin"'));
		lines[at] = `${(lines[at] as string).slice(0, 20)}\u0000garbage`;
		writeFileSync(path, lines.join("\n"));

		const again = await startApp({ home: first.home, root: first.root });
		const later = await again.open(`#/s/${id}`);
		const notice = later.getByRole("status", { name: "Damaged Trace lines" });
		// Opening the Session resumes it, and a resume moves the damaged bytes aside at once.
		await notice.getByText(/A damaged line of trace\.jsonl was moved aside to trace\.jsonl\.damaged-\d+/).waitFor();
		await later.getByText("first answer").waitFor();
		again.reply({ text: "second answer" });
		await send(later, "more");
		await later.getByText("second answer").waitFor();
		await notice.getByRole("button", { name: "Dismiss" }).click();
		await notice.waitFor({ state: "detached" });
	});
});
