import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { linesOf, planInput, serve, TOKEN, until, workflowProject } from "./workflows-harness.js";

const CLI = fileURLToPath(new URL("../../cli/dist/main.js", import.meta.url));

/** Runs the built `omniloop workflows …`; resolves with its exit code and output. */
async function omniloop(home: string, env: Record<string, string>, ...args: string[]) {
	try {
		const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, "workflows", ...args], {
			env: { PATH: process.env.PATH, HOME: home, OMNILOOP_HOME: home, NO_COLOR: "1", ...env },
		});
		return { code: 0, stdout, stderr };
	} catch (error) {
		const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
		return { code, stdout, stderr };
	}
}

describe("omniloop workflows (the CLI, over HTTP)", () => {
	it("start, list, show, approve every pending call, resume; deny and cancel; errors name the problem", async () => {
		const { home, root } = await workflowProject();
		const served = await serve(home, root);
		const env = { OMNILOOP_URL: served.origin, OMNILOOP_TOKEN: TOKEN };
		const started = await omniloop(
			home,
			env,
			"--json",
			"start",
			planInput(["echo cli >> ran.txt", "echo two >> ran.txt"]),
		);
		expect(started.code).toBe(0);
		const { id } = JSON.parse(started.stdout) as { id: string };
		await until(served.api, id, ["waiting_approval"], (w) => w.pendingApprovals.length === 2);

		const list = await omniloop(home, env, "list", "--status", "waiting_approval");
		expect(list.stdout).toContain(id);
		expect(list.stdout).toContain("2 pending");
		const shown = await omniloop(home, env, "show", id.slice(0, 8));
		expect(shown.stdout).toContain("pending approvals:");
		expect(shown.stdout).toContain('shell {"command":"echo cli >> ran.txt"}');

		const approved = await omniloop(home, env, "approve", id.slice(0, 8));
		expect(approved.code).toBe(0);
		expect(approved.stdout).toContain(`workflow ${id} is ready: omniloop workflows resume ${id}`);
		expect((await omniloop(home, env, "resume", id)).stdout).toContain(`workflow ${id}: running`);
		await until(served.api, id, ["completed"]);
		// Both approved calls ran, once each; they run concurrently, so in either order.
		expect(linesOf(root, "ran.txt").sort()).toEqual(["cli", "two"]);
		const late = await omniloop(home, env, "resume", id);
		expect(late.code).toBe(1);
		expect(late.stderr).toContain("invalid_state: workflow");

		const second = JSON.parse(
			(await omniloop(home, env, "--json", "start", planInput(["echo no >> ran.txt"]))).stdout,
		) as {
			id: string;
		};
		const waiting = await until(served.api, second.id, ["waiting_approval"]);
		const denied = await omniloop(home, env, "deny", second.id, waiting.pendingApprovals[0]?.correlationId ?? "");
		expect(denied.stdout).toContain("denied");
		const again = await omniloop(home, env, "deny", second.id, waiting.pendingApprovals[0]?.correlationId ?? "");
		expect(again.stderr).toContain("already_answered: approval");
		expect(again.stderr).toContain("deny (by user)");
		expect((await omniloop(home, env, "cancel", second.id)).stdout).toContain("cancelled");
		// Both approved calls ran, once each; they run concurrently, so in either order.
		expect(linesOf(root, "ran.txt").sort()).toEqual(["cli", "two"]);

		// The token comes from server.json when OMNILOOP_TOKEN is not set; a wrong one is refused.
		const wrong = await omniloop(home, { OMNILOOP_URL: served.origin }, "--token", "nope", "list");
		expect(wrong.code).toBe(1);
		expect(wrong.stderr).toContain("unauthorized");
		const nowhere = await omniloop(home, { OMNILOOP_TOKEN: TOKEN }, "--url", "http://127.0.0.1:9", "list");
		expect(nowhere.stderr).toContain("cannot reach the server at http://127.0.0.1:9: bad port");
		expect(nowhere.stderr).toContain("is omniloop serve running there?");
	}, 60_000);
});
