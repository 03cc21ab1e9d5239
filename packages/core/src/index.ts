// The public API of @omniloop/core, name by name: docs/api.md lists each with its contract, and
// test/public-api.test.ts keeps the two equal. What the hosts need besides is in ./internal.ts.

export type { Checkpoint } from "./checkpoints/checkpoint-meta.js";
export { CheckpointError, type CheckpointProblem } from "./checkpoints/git-runner.js";
export type { FileChange, RestoreOptions, RestoreResult } from "./checkpoints/session-checkpoints.js";
export {
	type AgentConfig,
	type LoadedProjectConfig,
	loadProjectConfig,
	type McpServerEntry,
	type ModelConfig,
	PROJECT_CONFIG_FILE,
	type ProjectConfig,
	type WorkflowConfig,
	type WorkflowStepConfig,
} from "./config/project-config.js";
export {
	ConfigError,
	loadSystemConfig,
	omniloopHome,
	type SystemConfig,
	type SystemConfigInput,
} from "./config/system-config.js";
export { YamlParserMissingError } from "./config/yaml.js";
export { type Agent, type AgentOptions, createAgent } from "./engine/agent/agent.js";
export { AgentConfigError, type AgentConfigProblem } from "./engine/agent/agent-definition.js";
export type { PendingConfirmation } from "./engine/continuation/unfinished-turn.js";
export type { ForkOptions, LeftOutFile } from "./engine/history/fork.js";
export { HostStop, RunInputError, SessionBusyError, SessionNotFoundError } from "./engine/session/errors.js";
export { type Compactability, type RunOptions, Session, type UnfinishedTask } from "./engine/session/session.js";
export type { RestoreDone, RewindDone, RewindOptions } from "./engine/session/session-files.js";
export { addUsage, emptyUsage, userText } from "./messages/constructors.js";
export type {
	Abort,
	ApprovalDecision,
	AssistantText,
	CheckpointCreated,
	CheckpointFailed,
	CheckpointReason,
	CheckpointRestored,
	CompactionBegin,
	CompactionEnd,
	CompactionMode,
	CompactionReason,
	ConfirmationRequired,
	Done,
	DoneReason,
	ErrorInfo,
	EventMessage,
	InstructionFileInfo,
	InstructionsLoaded,
	JsonObject,
	JsonValue,
	MessageBase,
	ModelMessage,
	OmniMessage,
	OmniMessageType,
	Origin,
	PartialMessage,
	PartialReasoning,
	PartialText,
	PartialToolCall,
	Reasoning,
	RequestBegin,
	RequestEnd,
	RequestStatus,
	SessionRewound,
	SkippedFile,
	TokenUsage,
	ToolCall,
	ToolCallOutput,
	ToolCallStatus,
	ToolProgress,
	ToolStart,
	Usage,
	UserText,
} from "./messages/omni-message.js";
export { isModelMessage, isPartialMessage } from "./messages/omni-message.js";
export { AiSdkModel, type AiSdkModelOptions } from "./model/ai-sdk/adapter.js";
export {
	ProviderConfigError,
	type ProviderKind,
	type ProviderModelConfig,
} from "./model/ai-sdk/providers.js";
export { DemoModel } from "./model/demo/demo-model.js";
export { type FailureClass, ModelError, type ModelFailure } from "./model/failure.js";
export type {
	FinishReason,
	ModelAdapter,
	ModelEvent,
	ModelOutcome,
	ModelRequest,
	RequestPurpose,
	ThinkingLevel,
	ToolSpec,
} from "./model/model-adapter.js";
export type { SessionSummary } from "./session-store/session-index.js";
export { type MovedAsideLines, SessionStore } from "./session-store/session-store.js";
export { BUILTIN_TOOL_NAMES, type BuiltinToolName } from "./tools/builtins/builtin-names.js";
export { loadBuiltinTools } from "./tools/builtins/load-builtins.js";
export { WorkspaceError } from "./tools/builtins/workspace.js";
export { McpStartError, McpToolCallError } from "./tools/mcp/mcp-errors.js";
export type { SandboxMode, SandboxState } from "./tools/sandbox/sandbox-mode.js";
export {
	type ApprovalAnswer,
	type ApproveFn,
	type ApproveOptions,
	type ApproveResult,
	type ArgumentCheck,
	type DecidedBy,
	type Tool,
	type ToolContext,
	type ToolDefinition,
	type ToolResult,
	tool,
} from "./tools/tool.js";
export type { TaskSoFar, TraceHeader } from "./trace/trace-header.js";
export type { DamageSeen, TraceFileContents } from "./trace/trace-history.js";
export { type DamagedLine, TraceFormatError } from "./trace/trace-reader.js";
