export { AiSdkModel, type AiSdkModelOptions } from "./adapter.js";
export { classifyFailure } from "./classify.js";
export { PROVIDER_KINDS, ProviderConfigError, type ProviderKind, type ProviderModelConfig } from "./providers.js";
