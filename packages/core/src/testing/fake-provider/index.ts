export { type FakeModelYamlOptions, fakeModelYaml } from "./config.js";
export { findUnpairedCalls } from "./pairing.js";
export { FakeProviderServer, type FakeProviderServerOptions } from "./server.js";
export type {
	FakeReply,
	FakeReplySource,
	FakeToolCall,
	FakeUsage,
	Fault,
	ProviderApi,
	RecordedProviderRequest,
	ReplayConvention,
	ReplayOptions,
} from "./types.js";
