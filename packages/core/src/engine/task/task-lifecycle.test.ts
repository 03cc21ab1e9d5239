import { describe, expect, it } from "vitest";
import { TaskLifecycle } from "./task-lifecycle.js";

function lifecycle() {
	const steps: string[] = [];
	const task = new TaskLifecycle({
		close: () => steps.push("close"),
		release: () => steps.push("release"),
		end: () => steps.push("end"),
	});
	return { task, steps };
}

describe("a Task's lifecycle", () => {
	it("runs running → ending → ended once: close, the work's last messages, release, end", async () => {
		const { task, steps } = lifecycle();
		expect(task.phase).toBe("running");
		const first = task.finish(() => {
			expect(task.phase).toBe("ending");
			steps.push("last");
		});
		// Whoever comes second (the loop waking after an abort ended the Task) changes nothing.
		const second = task.finish(() => {
			steps.push("again");
		});
		await Promise.all([first, second, task.ended]);
		expect(task.phase).toBe("ended");
		expect(task.running).toBe(false);
		expect(steps).toEqual(["close", "last", "release", "end"]);
	});

	it("still frees the Session and ends the output when the last step throws", async () => {
		const { task, steps } = lifecycle();
		await expect(
			task.finish(() => {
				throw new Error("the disk is full");
			}),
		).rejects.toThrow("the disk is full");
		await task.ended;
		expect(steps).toEqual(["close", "release", "end"]);
		expect(task.phase).toBe("ended");
	});
});
