import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SessionCheckpoints } from "../../checkpoints/session-checkpoints.js";
import { ShadowStore } from "../../checkpoints/shadow-store.js";
import {
	type InstructionSources,
	loadInstructions,
	noInstructions,
	type ProjectInstructions,
	withInstructions,
} from "../../instructions/project-instructions.js";
import { emptyUsage } from "../../messages/constructors.js";
import type { ModelMessage, OmniMessage, Usage } from "../../messages/omni-message.js";
import { requestTimer } from "../../model/stream-watchdog.js";
import { AlwaysAllowed } from "../../session-store/always-allowed.js";
import { Environment } from "../../tools/environment.js";
import type { ToolRegistry } from "../../tools/tool-registry.js";
import { traceFileName } from "../../trace/trace-files.js";
import type { TraceHeader } from "../../trace/trace-header.js";
import { readTrace } from "../../trace/trace-reader.js";
import { moveAsideDamagedLines } from "../../trace/trace-repair.js";
import { TraceWriter } from "../../trace/trace-writer.js";
import { latestReadableTrace } from "../../trace/unbegun-file.js";
import { AgentConfigError } from "../agent/agent-definition.js";
import type { AgentSetup, SessionPlace } from "../agent/agent-setup.js";
import { loadModel } from "../agent/model-source.js";
import { SessionSubagents } from "../agent/subagents.js";
import { builtInSystemPrompt } from "../agent/system-prompt.js";
import { loadToolset, type Toolset } from "../agent/toolset.js";
import type { LeftOutFile } from "../history/fork.js";
import { rebuildFromTrace, spentInTrace } from "../history/resume.js";
import { withoutRewound } from "../history/rewind.js";
import type { SessionState } from "../loop-types.js";
import { IncrementalPairing } from "../pairing.js";
import { nextSeq } from "../task/seq.js";
import { SessionNotFoundError } from "./errors.js";
import { realFilePathNow, realPathNow } from "./real-path.js";
import { Session } from "./session.js";

/** Opens a new Session: its model and tools load now, and its first Trace file is written. */
export async function openNewSession(
	setup: AgentSetup,
	place: SessionPlace,
	fork?: {
		parent: NonNullable<TraceHeader["parent"]>;
		history: readonly ModelMessage[];
		leftOut?: readonly LeftOutFile[];
	},
): Promise<Session> {
	const parent = fork?.parent;
	const sessionId = place.sessionId ?? randomUUID();
	const createdAt = new Date().toISOString();
	const model = loadModel(setup.definition.source, setup.env, setup.models);
	const sources = instructionSources(setup, place.workspaceDir, place.workspaceRoot);
	// Read once, now: the same bytes go with every request of the Session (the prompt cache holds).
	const instructions = place.depth === 0 ? loadInstructions(sources) : noInstructions();
	const header: TraceHeader = {
		type: "trace_header",
		version: 1,
		sessionId,
		agentId: setup.definition.agentId,
		file: 1,
		createdAt,
		sessionCreatedAt: createdAt,
		workspaceDir: place.workspaceDir,
		model: model.id,
		...(setup.definition.source.kind === "given" ? {} : { modelRef: setup.definition.source.ref }),
		turnsBefore: 0,
		// Nothing handed out yet: the first message reserves the first block (a resume before it skips none).
		seqReserved: 0,
		...(instructions.files.length === 0 ? {} : { instructions }),
		...(parent === undefined ? {} : { parent }),
		...(place.workspaceRoot === undefined ? {} : { workspaceRoot: place.workspaceRoot }),
	};
	const loaded = await loadToolset(
		setup,
		place.workspaceDir,
		place.depth,
		new SessionSubagents(setup, place, openNewSession),
		errorOf,
	);
	const trace = TraceWriter.create(join(place.traceDir, traceFileName(1)), header, {
		durable: setup.config.trace.durable,
		enabled: setup.config.trace.enabled,
	});
	const state = sessionState(common(setup, header, trace, place, loaded, instructions, sources), {
		model,
		context: [],
		callIds: new Set(),
		seq: 0,
		seqReserved: 0,
		usage: emptyUsage(),
		turnCount: 0,
		lastRequestTotal: 0,
		compaction: { turnsSince: 0, blockedUntilTurn: 0, justCompacted: false },
	});
	if (fork !== undefined) seedHistory(state, fork.history);
	return new Session(state, loaded, fork?.leftOut);
}

/** A fork's first lines: its parent's history, numbered anew in its own Trace (a resume rebuilds it from there). */
function seedHistory(state: SessionState, history: readonly ModelMessage[]): void {
	for (const message of history) {
		const copy: ModelMessage = { ...message, seq: nextSeq(state) };
		state.trace.write(copy);
		state.context.push(copy);
		if (copy.type === "tool_call") state.callIds.add(copy.callId);
	}
	state.trace.flush();
}

/**
 * Rebuilds a Session from the latest Trace file in `traceDir`; it goes on appending to that file.
 * Its model is the one recorded when it was made, with today's credentials — unless the agent was
 * made with a model the host chose (`modelName`: the CLI's --model and /model).
 */
export async function openResumedSession(setup: AgentSetup, traceDir: string, sessionId: string): Promise<Session> {
	const latest = existsSync(traceDir) ? latestReadableTrace(traceDir) : 0;
	if (latest === 0) throw new SessionNotFoundError(sessionId, traceDir);
	const path = join(traceDir, traceFileName(latest));
	const { header, messages, seqReserved, damagedLines } = readTrace(path);
	// The file is written on: its damaged lines go aside first (read without them, kept beside it).
	moveAsideDamagedLines(path, damagedLines);
	// A Trace older than taskBefore counts the open Task from this file's start.
	const openTask = header.openTask === true ? (header.taskBefore ?? { turns: 0, usage: emptyUsage() }) : undefined;
	const rebuilt = rebuildFromTrace(withoutRewound(messages), openTask);
	const spent = spentInTrace(messages);
	// Every call of the file, not only those in the rebuilt context (a turn a person stopped mid-output is a note there).
	const earlier = scanEarlierFiles(traceDir, latest, messages);
	// Above every number that may have been handed out, partials included; the first message reserves anew.
	// (`seqReserved` is the file's last reservation, its header's included; older Traces have none.)
	const seq = Math.max(rebuilt.seq, seqReserved ?? earlier.seq);
	const { source } = setup.definition;
	const recorded =
		source.kind === "config" && source.chosen !== true && header.modelRef !== undefined
			? { ...source, ref: header.modelRef }
			: source;
	const place: SessionPlace = { workspaceDir: header.workspaceDir, traceDir, depth: 0, sessionId };
	const instructions = instructionsIn(header, messages);
	const loaded = await loadToolset(
		setup,
		header.workspaceDir,
		0,
		new SessionSubagents(setup, place, openNewSession),
		errorOf,
	);
	const model = loadModel(recorded, setup.env, setup.models);
	// The next Trace file (a compaction's) records the model the Session now runs on: a model chosen
	// for it (`modelName`) holds after the rotation, and on a resume from that file.
	const running =
		recorded.kind === "config" && recorded.chosen === true
			? { ...header, model: model.id, modelRef: recorded.ref }
			: header;
	const state = sessionState(
		common(
			setup,
			running,
			TraceWriter.append(path, { durable: setup.config.trace.durable }),
			place,
			loaded,
			instructions,
			instructionSources(setup, header.workspaceDir, header.workspaceRoot),
		),
		{
			model,
			context: rebuilt.context,
			carryOver: rebuilt.carryOver,
			unfinished: rebuilt.unfinished,
			callIds: earlier.callIds,
			seq,
			seqReserved: seq,
			// A file just begun by a compaction has no token_usage yet; Traces older than `usageBefore` keep theirs in earlier files.
			usage: { ...(spent.usage ?? header.usageBefore ?? earlier.usage ?? emptyUsage()) },
			turnCount: header.turnsBefore + spent.turns,
			lastRequestTotal: rebuilt.lastRequestTotal,
			compaction: {
				turnsSince: rebuilt.turns,
				blockedUntilTurn: 0,
				justCompacted: rebuilt.turns === 0 && header.file > 1,
			},
		},
	);
	await sealCutOffTurn(state, messages);
	return new Session(state, loaded);
}

/**
 * A turn a crash cut off never got its seal (the files as its tools left them): without one an
 * undo would take the turn's own changes for changes made outside the agent. Its checkpoint is the
 * last, and the Trace shows no `done` after it (docs/checkpoints.md). A failure leaves it so: its
 * changes are then reported as conflicts, the safe side.
 */
async function sealCutOffTurn(state: SessionState, messages: readonly OmniMessage[]): Promise<void> {
	await state.checkpoints
		?.sealCutOff((turn) => {
			const made = messages.findIndex((m) => m.type === "checkpoint_created" && m.checkpointId === turn.id);
			return made === -1 || !messages.slice(made).some((m) => m.type === "done");
		})
		.catch(() => undefined);
}

/** What a new and a resumed Session's state share, made the same way for both (`common`). */
type CommonState = Omit<
	SessionState,
	"model" | "context" | "callIds" | "seq" | "seqReserved" | "usage" | "turnCount" | "lastRequestTotal" | "compaction"
>;

/**
 * A Session's state: `common`'s fields, then its own. Assigned onto `common`'s object, not spread
 * into a new one: on Node 20's V8 an object made by a spread and then given more properties gets
 * a hidden class of its own, so 1,000 Sessions had ~1,000 of them and every access the engine
 * makes to a Session's state (its seq, once per streamed delta) missed V8's inline caches
 * (docs/performance.md).
 */
function sessionState(
	shared: CommonState,
	own: Omit<SessionState, keyof CommonState> & Partial<Pick<SessionState, "carryOver" | "unfinished">>,
): SessionState {
	return Object.assign(shared, own);
}

function common(
	setup: AgentSetup,
	header: TraceHeader,
	trace: TraceWriter,
	place: SessionPlace,
	loaded: Toolset,
	instructions: ProjectInstructions,
	sources: InstructionSources,
): CommonState {
	const tools = loaded.registry;
	const baseSystem = systemPrompt(setup.definition.system, header, tools);
	return {
		environment: new Environment(
			tools,
			// The real path recorded when the Session was made, as it is: resolved again here, a folder
			// swapped for a link between processes would take the tools wherever the link leads.
			header.workspaceDir,
			place.traceDir,
			setup.config.timeouts.toolMs,
			loaded.sandbox,
			setup.deniedPaths.map(realPathNow),
			// The file's own path and, when it is a link, where it leads: a write through either is refused.
			[...new Set(setup.readOnlyPaths.flatMap((path) => [realFilePathNow(path), realPathNow(path)]))],
		),
		requestTimer: requestTimer(),
		traceHeader: header,
		traceDir: place.traceDir,
		sessionId: header.sessionId,
		agentId: setup.definition.agentId,
		workspaceDir: header.workspaceDir,
		system: withInstructions(baseSystem, instructions),
		baseSystem,
		instructions,
		instructionSources: sources,
		checkpoints: openCheckpoints(setup, header, place),
		approval: setup.definition.approval,
		alwaysAllowed: place.alwaysAllowed ?? new AlwaysAllowed({ sessionFolder: place.traceDir }),
		secrets: setup.secrets,
		config: setup.config,
		trace,
		onPairingRepair: setup.onPairingRepair,
		shipTrace: setup.shipTrace,
		guard: setup.guard,
		pairing: new IncrementalPairing(),
		depth: place.depth,
		carryOver: [],
		unfinished: undefined,
	};
}

/** The agent's own system prompt; with none configured, the built-in one; `""` means none at all. */
function systemPrompt(configured: string | undefined, header: TraceHeader, tools: ToolRegistry): string | undefined {
	if (configured !== undefined) return configured === "" ? undefined : configured;
	return builtInSystemPrompt({
		workspaceDir: header.workspaceDir,
		createdAt: header.sessionCreatedAt ?? header.createdAt,
		tools: tools.names,
	});
}

function instructionSources(
	setup: AgentSetup,
	workspaceDir: string,
	workspaceRoot: string | undefined,
): InstructionSources {
	return {
		home: setup.home,
		workspaceDir,
		workspaceRoot,
		maxBytes: setup.instructionsMaxBytes,
		deniedPaths: setup.deniedPaths,
	};
}

/** The instructions the Session's requests carry: the last reload's in this file, else its header's. */
function instructionsIn(header: TraceHeader, messages: readonly OmniMessage[]): ProjectInstructions {
	const reloaded = messages.findLast((m) => m.type === "instructions_loaded");
	if (reloaded?.type === "instructions_loaded") return { files: reloaded.files, text: reloaded.text };
	return header.instructions ?? noInstructions();
}

/** Top-level Sessions only: a subagent works in its parent's workspace, whose turn checkpointed it. */
function openCheckpoints(setup: AgentSetup, header: TraceHeader, place: SessionPlace): SessionCheckpoints | undefined {
	if (setup.checkpoints === undefined || place.depth > 0) return undefined;
	const store = ShadowStore.at(setup.home, header.sessionId, header.workspaceDir, setup.checkpoints.maxFileBytes);
	return new SessionCheckpoints(store, header.sessionId);
}

function errorOf(message: string): AgentConfigError {
	return new AgentConfigError(message);
}

/** What a resume needs from the Trace files before the newest one. */
interface EarlierFiles {
	/** Every call id the Session has used: a model that repeats one after a compaction and a resume must still not run a tool twice. */
	callIds: Set<string>;
	/** The highest seq or reservation in them (for Traces whose headers do not carry `seqReserved`). */
	seq: number;
	/** Their last `token_usage.session` (for Traces whose headers do not carry `usageBefore`). */
	usage: Usage | undefined;
}

function scanEarlierFiles(dir: string, latest: number, latestMessages: readonly OmniMessage[]): EarlierFiles {
	const found: EarlierFiles = {
		callIds: new Set(latestMessages.flatMap((m) => (m.type === "tool_call" ? [m.callId] : []))),
		seq: 0,
		usage: undefined,
	};
	for (let n = 1; n < latest; n++) {
		const path = join(dir, traceFileName(n));
		if (!existsSync(path)) continue;
		const { messages, seqReserved } = readTrace(path);
		found.seq = Math.max(found.seq, seqReserved ?? 0);
		for (const message of messages) {
			if (message.seq > found.seq) found.seq = message.seq;
			if (message.type === "tool_call") found.callIds.add(message.callId);
			else if (message.type === "token_usage") found.usage = message.session;
		}
	}
	return found;
}
