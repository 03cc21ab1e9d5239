import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freshDatabase } from "./pg-database.js";
import { planInput, serve, startWorkflow, until, workflowProject } from "./workflows-harness.js";

/** A workflow project on a fresh Postgres with a second home (another machine's), both with 1.5 s leases. */
export async function twoHomes(extraYaml: string[] = []) {
	const project = await workflowProject(extraYaml);
	const database = await freshDatabase();
	const homeB = join(project.base, "home-b");
	mkdirSync(homeB);
	for (const dir of [project.home, homeB]) writeFileSync(join(dir, "system_config.yaml"), "server:\n  leaseMs: 1500\n");
	const env = { OMNILOOP_DATABASE_URL: database };
	return { ...project, database, homeB, env };
}

/** Two servers, A and B; a workflow started on A whose one shell call (`command`) waits on a person, as B sees it. */
export async function waitingOnA(command = "echo ran >> ran.txt") {
	const project = await twoHomes();
	const a = await serve(project.home, project.root, project.env);
	const b = await serve(project.homeB, project.root, project.env);
	const id = await startWorkflow(a.api, { input: planInput([command]) });
	const waiting = await until(b.api, id, ["waiting_approval"]);
	return { ...project, a, b, id, sessionId: waiting.sessionId, pending: waiting.pendingApprovals[0] };
}
