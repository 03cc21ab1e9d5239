import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createStyle } from "../terminal/style.js";
import { fileLine, hunks } from "./restore-preview.js";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The diff git writes for one file changed between two commits, with the shadow store's flags. */
function gitDiff(before: Buffer | string, after: Buffer | string): string {
	dir = mkdtempSync(join(tmpdir(), "omniloop-preview-"));
	const git = (...args: string[]) =>
		execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" });
	git("init", "--quiet");
	writeFileSync(join(dir, "f"), before);
	git("add", "f");
	git("commit", "--quiet", "-m", "1");
	writeFileSync(join(dir, "f"), after);
	git("commit", "--quiet", "-am", "2");
	return git("diff-tree", "-p", "-r", "--no-renames", "--no-color", "--full-index", "--binary", "HEAD~1", "HEAD");
}

describe("a restore's preview and /diff", () => {
	it("say binary for a binary file, not +0 −0", () => {
		const diff = gitDiff(Buffer.from([0, 1, 2, 255]), Buffer.from([0, 9, 9, 254, 0]));
		expect(diff).toContain("GIT binary patch");
		expect(hunks(diff)).toEqual(["binary"]);
		expect(fileLine({ path: "f", status: "modified", diff }, createStyle(false))).toBe("modified f  binary");
	});

	it("count a text file's lines", () => {
		const diff = gitDiff("a\nb\n", "a\nc\nd\n");
		expect(fileLine({ path: "f", status: "modified", diff }, createStyle(false))).toBe("modified f  +2 −1");
		expect(hunks(diff)[0]).toMatch(/^@@ /);
	});
});
