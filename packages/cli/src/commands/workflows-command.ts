import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { OmniloopClient, type PendingApproval, WORKFLOW_STATUSES, type WorkflowView } from "@omniloop/client";
import { omniloopHome } from "@omniloop/core";
import { type Command, Option } from "commander";
import type { CliContext, GlobalOptions } from "../cli-options.js";
import { UsageError } from "../errors.js";
import { EXIT } from "../exit-codes.js";

type Act = (
	action: (ctx: CliContext, options: GlobalOptions) => Promise<number>,
) => (command: Command) => Promise<void>;

interface ConnectionOptions {
	url?: string;
	token?: string;
}

const DEFAULT_URL = "http://127.0.0.1:4317";

/**
 * A client of the Runtime Server: the URL and token from flags, else the environment, else
 * `omniloop serve`'s files. Its errors say which server answered what, or that none did.
 */
function serverClient(options: ConnectionOptions, env: NodeJS.ProcessEnv): OmniloopClient {
	const baseUrl = options.url ?? env.OMNILOOP_URL ?? DEFAULT_URL;
	const token = options.token ?? nonEmpty(env.OMNILOOP_TOKEN) ?? tokenFromHome(omniloopHome(env));
	if (token === undefined) {
		throw new UsageError(
			`no token: pass --token, set OMNILOOP_TOKEN, or run omniloop serve (it writes ${join(omniloopHome(env), "server.json")})`,
		);
	}
	return new OmniloopClient({ baseUrl, token });
}

function nonEmpty(value: string | undefined): string | undefined {
	return value === undefined || value === "" ? undefined : value;
}

function tokenFromHome(home: string): string | undefined {
	const file = join(home, "server.json");
	if (!existsSync(file)) return undefined;
	const token = (JSON.parse(readFileSync(file, "utf8")) as { token?: unknown }).token;
	return typeof token === "string" ? token : undefined;
}

function time(ms: number): string {
	return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}

function describeApproval(approval: PendingApproval): string {
	const expires = approval.expiresAt === undefined ? "" : `, denied at ${time(approval.expiresAt)} unless decided`;
	return `  ${approval.correlationId}  ${approval.name} ${approval.arguments}  (asked ${time(approval.requestedAt)}${expires})`;
}

function printWorkflow(ctx: CliContext, workflow: WorkflowView): void {
	const out = ctx.screen.info;
	out.line(`${workflow.id}  ${workflow.status}${workflow.name === undefined ? "" : `  ${workflow.name}`}`);
	out.line(`  session ${workflow.sessionId}, started ${time(workflow.createdAt)}, updated ${time(workflow.updatedAt)}`);
	if (workflow.pendingApprovals.length > 0) {
		out.line("pending approvals:");
		for (const approval of workflow.pendingApprovals) out.line(describeApproval(approval));
	}
	for (const approval of workflow.approvals.filter((a) => a.decision !== null)) {
		out.line(`  decided ${approval.correlationId}  ${approval.name}: ${approval.decision} (by ${approval.by})`);
	}
	if (workflow.result !== undefined) out.line(`result: ${workflow.result.text}`);
	if (workflow.error !== undefined) out.line(`error: ${workflow.error}`);
}

/** Prints the server's answer: as JSON with --json, else through `human`. */
function show<T>(ctx: CliContext, value: T, human: (value: T) => void): number {
	if (ctx.screen.json) ctx.screen.out.line(JSON.stringify(value));
	else human(value);
	return EXIT.ok;
}

/** A workflow by its id or the start of it. */
async function findWorkflow(client: OmniloopClient, id: string): Promise<WorkflowView> {
	const { workflows } = await client.call("GET /workflows");
	const matches = workflows.filter((workflow) => workflow.id.startsWith(id));
	if (matches.length === 1) return matches[0] as WorkflowView;
	throw new UsageError(
		matches.length === 0 ? `no workflow ${id}` : `${id} is the start of ${matches.length} workflows: give more of it`,
	);
}

async function decideCommand(
	client: OmniloopClient,
	ctx: CliContext,
	id: string,
	decision: "allow" | "deny",
	correlationId?: string,
) {
	const workflow = await findWorkflow(client, id);
	// Without a correlation id, one person decides every pending approval at once (docs/protocol.md §5.8).
	const ids = correlationId === undefined ? workflow.pendingApprovals.map((a) => a.correlationId) : [correlationId];
	if (ids.length === 0)
		throw new UsageError(`workflow ${workflow.id} has no pending approvals (it is ${workflow.status})`);
	let status = workflow.status;
	for (const one of ids) {
		const body = { correlationId: one, decision };
		status = (await client.call("POST /workflows/:id/approve", { params: { id: workflow.id }, body })).status;
		if (!ctx.screen.json) ctx.screen.info.line(`${decision === "allow" ? "approved" : "denied"} ${one}`);
	}
	return show(ctx, { id: workflow.id, status }, ({ status: now }) =>
		ctx.screen.info.line(
			now === "ready"
				? `workflow ${workflow.id} is ready: omniloop workflows resume ${workflow.id}`
				: `workflow ${workflow.id}: ${now}`,
		),
	);
}

/** `omniloop workflows …`: durable workflows on a running `omniloop serve`, over HTTP. */
export function addWorkflowsCommand(program: Command, act: Act): void {
	const workflows = program
		.command("workflows")
		.description("durable workflows on a running omniloop serve: list, show, start, approve, deny, resume, cancel")
		.option("--url <url>", `the server (default $OMNILOOP_URL or ${DEFAULT_URL})`)
		.option("--token <token>", "its token (default $OMNILOOP_TOKEN or $OMNILOOP_HOME/server.json)");
	const run = (
		command: Command,
		action: (client: OmniloopClient, ctx: CliContext, options: GlobalOptions) => Promise<number>,
	) => act((ctx, options) => action(serverClient(workflows.opts<ConnectionOptions>(), ctx.env), ctx, options))(command);

	workflows
		.command("list")
		.description("the workflows, newest first")
		.addOption(new Option("--status <status>", "only the workflows in this status").choices(WORKFLOW_STATUSES))
		.action((options: { status?: string }, command: Command) =>
			run(command, async (client, ctx) => {
				const status = options.status as WorkflowView["status"] | undefined;
				const body = await client.call("GET /workflows", { query: { status } });
				return show(ctx, body, ({ workflows: list }) => {
					if (list.length === 0) ctx.screen.info.line("no workflows");
					for (const w of list) {
						const pending = w.pendingApprovals.length === 0 ? "" : `  ${w.pendingApprovals.length} pending`;
						ctx.screen.info.line(`${w.id}  ${w.status.padEnd(16)} ${w.name ?? "-"}  ${time(w.updatedAt)}${pending}`);
					}
				});
			}),
		);
	workflows
		.command("show")
		.description("one workflow: its status, pending approvals (with their correlation ids), result")
		.argument("<id>", "the workflow's id, or the start of it")
		.action((id: string, _options: unknown, command: Command) =>
			run(command, async (client, ctx) => show(ctx, await findWorkflow(client, id), (w) => printWorkflow(ctx, w))),
		);
	workflows
		.command("start")
		.description("start a workflow: a named one of omniloop.yaml (--workflow), else one Task of --agent")
		.argument("<input...>", "the input (the prompt, or a named workflow's {{input}})")
		.option("--workflow <name>", "a named workflow of omniloop.yaml")
		.action((input: string[], options: { workflow?: string }, command: Command) =>
			run(command, async (client, ctx, global) => {
				const body =
					options.workflow === undefined
						? { agentId: global.agent, input: input.join(" ") }
						: { workflow: options.workflow, input: input.join(" ") };
				const started = await client.call("POST /workflows", { body });
				return show(ctx, started, (s) => ctx.screen.info.line(`${s.id}  ${s.status}`));
			}),
		);
	for (const [name, decision] of [
		["approve", "allow"],
		["deny", "deny"],
	] as const) {
		workflows
			.command(name)
			.description(`${name} a pending approval (without a correlation id: every pending one)`)
			.argument("<id>", "the workflow's id, or the start of it")
			.argument("[correlationId]", "the approval (omniloop workflows show lists them)")
			.action((id: string, correlationId: string | undefined, _options: unknown, command: Command) =>
				run(command, (client, ctx) => decideCommand(client, ctx, id, decision, correlationId)),
			);
	}
	for (const name of ["resume", "cancel"] as const) {
		workflows
			.command(name)
			.description(
				name === "resume"
					? "continue a ready workflow (every approval decided)"
					: "cancel a workflow (its Task is aborted)",
			)
			.argument("<id>", "the workflow's id, or the start of it")
			.action((id: string, _options: unknown, command: Command) =>
				run(command, async (client, ctx) => {
					const workflow = await findWorkflow(client, id);
					const params = { params: { id: workflow.id } };
					const body =
						name === "resume"
							? await client.call("POST /workflows/:id/resume", params)
							: await client.call("POST /workflows/:id/cancel", params);
					return show(ctx, { id: workflow.id, ...body }, (b) => ctx.screen.info.line(`workflow ${b.id}: ${b.status}`));
				}),
			);
	}
}
