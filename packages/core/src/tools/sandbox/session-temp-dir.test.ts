import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sweepLeftoverTempDirs } from "./session-temp-dir.js";

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
	it("removes the temp dirs and placeholders of omniloop processes that are gone, and nothing else", () => {
		const dir = mkdtempSync(join(tmpdir(), "omniloop-sweep-"));
		folders.push(dir);
		const gone = deadPid();
		const namespace = /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1];
		const make = (name: string) => {
			mkdirSync(join(dir, name));
			writeFileSync(join(dir, name, "left.txt"), "what a command left");
			return name;
		};
		const leftover = make(`omniloop-shell-${namespace}-${gone}-AbC123`);
		writeFileSync(join(dir, `${leftover}.denied`), "");
		const kept = [
			make(`omniloop-shell-${namespace}-${process.ppid}-XyZ789`), // its process runs
			make(`omniloop-shell-${namespace}-${process.pid}-QwE456`), // this process's own
			make(`omniloop-shell-1-${gone}-AbC123`), // another PID namespace's (a /tmp shared between containers)
			make("omniloop-shell-AbC123"), // made before dirs were named by their process
			make(`someone-else-${gone}-AbC123`),
		];
		sweepLeftoverTempDirs(dir);
		expect(existsSync(join(dir, leftover))).toBe(false);
		expect(existsSync(join(dir, `${leftover}.denied`))).toBe(false);
		for (const name of kept) expect(existsSync(join(dir, name)), name).toBe(true);
	});
});
