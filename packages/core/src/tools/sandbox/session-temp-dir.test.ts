import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sweepLeftoverTempDirs, tempDirOwner } from "./session-temp-dir.js";

const folders: string[] = [];
afterEach(() => {
	for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The pid of a process that ran and is gone. */
function deadPid(): number {
	const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
	return Number(child.stdout);
}

describe("sweepLeftoverTempDirs", () => {
	it("removes the temp dirs and placeholders of this boot's and namespace's omniloop processes that are gone, and nothing else", async () => {
		const owner = tempDirOwner();
		if (owner === undefined) throw new Error("this machine's boot id or PID namespace cannot be read (/proc)");
		const dir = mkdtempSync(join(tmpdir(), "omniloop-sweep-"));
		folders.push(dir);
		const gone = deadPid();
		const make = (name: string) => {
			mkdirSync(join(dir, name));
			writeFileSync(join(dir, name, "left.txt"), "what a command left");
			return name;
		};
		const leftover = make(`omniloop-shell-${owner}-${gone}-AbC123`);
		writeFileSync(join(dir, `${leftover}.denied`), "");
		const [boot, namespace] = owner.split("-");
		const kept = [
			make(`omniloop-shell-${owner}-${process.ppid}-XyZ789`), // its process runs
			make(`omniloop-shell-${owner}-${process.pid}-QwE456`), // this process's own
			make(`omniloop-shell-${boot}-1-${gone}-AbC123`), // another PID namespace's (a /tmp shared between containers)
			make(`omniloop-shell-00000000-${namespace}-${gone}-AbC123`), // another machine's or boot's (TMPDIR on NFS)
			make("omniloop-shell-AbC123"), // made where whose it was could not be told
			make(`someone-else-${gone}-AbC123`),
		];
		await sweepLeftoverTempDirs(dir, owner);
		expect(existsSync(join(dir, leftover))).toBe(false);
		expect(existsSync(join(dir, `${leftover}.denied`))).toBe(false);
		for (const name of kept) expect(existsSync(join(dir, name)), name).toBe(true);
	});
});
