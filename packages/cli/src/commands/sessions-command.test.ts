import type { SessionSummary } from "@omniloop/core";
import { describe, expect, it } from "vitest";
import { createStyle } from "../terminal/style.js";
import { sessionTable } from "./sessions-command.js";

const summary = (n: number, title: string): SessionSummary => ({
	sessionId: `${n}f2a9c1e-7b3d-4e8f-9a0b-1c2d3e4f5a6b`,
	agentId: "default_agent",
	model: "anthropic:claude-sonnet-4-5-20250929",
	workspaceDir: "/home/someone/projects/a-rather-long-project-name",
	createdAt: "2025-01-31T14:05:00.000Z",
	updatedAt: "2025-01-31T14:05:00.000Z",
	title,
	firstPrompt: title,
	usage: { input: 1000, output: 234, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 1234 },
	traceFiles: 1,
});

const sessions = [
	summary(3, "refactor the session table so that every row fits in the terminal it is printed in"),
	summary(4, "short"),
];

describe("the sessions table", () => {
	it("fits each Session on one line of an 80-column terminal, the long cells cut with an ellipsis", () => {
		const lines = sessionTable(sessions, createStyle(false), 79, "/home/someone");
		expect(lines).toHaveLength(3);
		for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(79);
		expect(lines[0]).toMatch(/^ID +UPDATED +AGENT\/MODEL +FOLDER +TOKENS +TITLE$/);
		// The id's start (what replay and --resume take), the date, agent/model cut, the tokens, the title's start.
		expect(lines[1]).toMatch(/^3f2a9c1e +\d{4}-\d\d-\d\d \d\d:\d\d +default_agent… +…\S+ +1,?234 +refactor the…$/);
		expect(lines[2]).toMatch(/ short$/);
	});

	it("shows every cell whole when there is room (a pipe has no width)", () => {
		const lines = sessionTable(sessions, createStyle(false), Number.POSITIVE_INFINITY, "/home/someone");
		expect(lines[1]).toContain(sessions[0]?.sessionId);
		expect(lines[1]).toContain("default_agent/anthropic:claude-sonnet-4-5-20250929");
		expect(lines[1]).toContain("~/projects/a-rather-long-project-name");
		expect(lines[1]).toContain("every row fits in the terminal it is printed in");
	});

	it("at 120 columns the id and the title stay whole when the other columns give way", () => {
		const lines = sessionTable(sessions, createStyle(false), 119, "/home/someone");
		for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(119);
		expect(lines[2]).toMatch(/ short$/);
	});
});
