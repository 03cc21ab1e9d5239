import {
	APICallError,
	type LanguageModelV3,
	type LanguageModelV3StreamPart,
	type SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import type { ModelFailure } from "../failure.js";
import type { ModelAdapter, ModelEvent, ModelRequest } from "../model-adapter.js";
import { BAD_PORT, CONNECTION_REFUSED, classifyFailure, UNKNOWN_HOST, withoutSecrets } from "./classify.js";

const UNREACHABLE = new Set([CONNECTION_REFUSED, UNKNOWN_HOST, BAD_PORT]);

import { addCacheBreakpoints, toPrompt, toTools } from "./prompt.js";
import {
	checkProviderConfig,
	DEFAULT_BASE_URLS,
	loadLanguageModel,
	type ProviderKind,
	type ProviderModelConfig,
} from "./providers.js";
import { StreamPartMapper } from "./stream-parts.js";
import { thinkingOptions } from "./thinking.js";

/** What an `AiSdkModel` is made with: the provider, the model, its credentials and limits. */
export interface AiSdkModelOptions {
	provider: ProviderKind;
	/** The provider-options key of an openai-compatible provider ("compatible" unless set). */
	providerName?: string;
	maxOutputTokens?: number;
	/** Anthropic cache breakpoints on the stable prefix (default: on for anthropic). */
	promptCaching?: boolean;
	/**
	 * How a person finds this model in their config, e.g. "model `local` in /p/omniloop.yaml":
	 * a server that cannot be reached is reported as "cannot connect to <baseURL> (<where>)".
	 */
	where?: string;
	/** The base URL requests go to, for that message (the provider's default when not configured). */
	baseURL?: string;
}

/**
 * A ModelAdapter over any AI SDK LanguageModelV3 provider. It calls `doStream` (never the AI
 * SDK's own loop), maps OmniMessages to the provider prompt and stream parts to model events,
 * and classifies every failure into an outcome: it never throws.
 */
export class AiSdkModel implements ModelAdapter {
	readonly id: string;

	/** `model`: the provider's model, or its loading (`fromConfig`); `modelId` names one still loading. */
	constructor(
		private readonly model: LanguageModelV3 | Promise<LanguageModelV3>,
		private readonly options: AiSdkModelOptions & { modelId?: string },
	) {
		this.id = `${options.provider}:${model instanceof Promise ? options.modelId : model.modelId}`;
	}

	/**
	 * A model from its config: provider, model name, key, base URL. A bad config throws now. The
	 * provider's SDK starts loading now, in the background (importing omniloop does not load it),
	 * so the first request finds it ready.
	 */
	static fromConfig(config: ProviderModelConfig, options: Omit<AiSdkModelOptions, "provider"> = {}): AiSdkModel {
		checkProviderConfig(config);
		const loading = loadLanguageModel(config);
		// A failure to load is the first request's failure, classified there.
		loading.catch(() => {});
		return new AiSdkModel(loading, {
			baseURL: config.baseURL ?? DEFAULT_BASE_URLS[config.provider],
			...options,
			provider: config.provider,
			modelId: config.model,
		});
	}

	async *streamGenerate(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent, void, undefined> {
		let stream: ReadableStream<LanguageModelV3StreamPart>;
		try {
			const model = await this.model;
			({ stream } = await model.doStream(this.callOptions(request, signal)));
		} catch (error) {
			yield this.outcomeFor(error, signal);
			return;
		}
		yield* this.readStream(stream, signal);
	}

	private async *readStream(
		stream: ReadableStream<LanguageModelV3StreamPart>,
		signal: AbortSignal,
	): AsyncGenerator<ModelEvent, void, undefined> {
		const reader = stream.getReader();
		const mapper = new StreamPartMapper();
		let outcome: ModelEvent | undefined;
		try {
			while (outcome === undefined) {
				const { done, value } = await reader.read();
				if (done) break;
				const result = mapper.map(value);
				if (result.kind === "error") outcome = this.outcomeFor(result.error, signal);
				else {
					for (const event of result.events) yield event;
					if (result.kind === "finish")
						outcome = { type: "outcome", outcome: { status: "ok", finishReason: result.finishReason } };
				}
			}
		} catch (error) {
			outcome = this.outcomeFor(error, signal);
		} finally {
			reader.cancel().catch(() => {});
		}
		// Yielded after the reader is released, since the engine stops reading at the outcome.
		yield outcome ??
			(signal.aborted
				? { type: "outcome", outcome: { status: "aborted" } }
				: failed({ class: "malformed", message: "the stream ended without its finish" }));
	}

	private outcomeFor(error: unknown, signal: AbortSignal): ModelEvent {
		if (signal.aborted) return { type: "outcome", outcome: { status: "aborted" } };
		const failure = classifyFailure(error);
		const unreachable = failure.code !== undefined && UNREACHABLE.has(failure.code);
		// No answer at all: the message says which URL was tried (without a key in it), never just "API".
		const noAnswer = APICallError.isInstance(error) && error.statusCode === undefined;
		if (unreachable || noAnswer) {
			const where = this.options.where === undefined ? "" : ` (${this.options.where})`;
			const url = this.options.baseURL ?? (APICallError.isInstance(error) ? error.url : undefined);
			const reason = failure.message.replace(/^Cannot connect to API: /, "");
			failure.message = `cannot connect to ${url === undefined ? this.id : withoutSecrets(url)}${where}: ${reason}`;
		}
		return failed(failure);
	}

	private callOptions(request: ModelRequest, signal: AbortSignal) {
		const prompt = toPrompt(request);
		if (this.options.promptCaching ?? this.options.provider === "anthropic")
			addCacheBreakpoints(prompt, request.purpose);
		const providerOptions: SharedV3ProviderOptions = thinkingOptions(
			this.options.provider,
			request.thinkingLevel,
			this.options.providerName ?? "compatible",
		);
		return {
			prompt,
			abortSignal: signal,
			...(request.tools.length === 0 ? {} : { tools: toTools(request.tools), toolChoice: { type: "auto" as const } }),
			...(this.options.maxOutputTokens === undefined ? {} : { maxOutputTokens: this.options.maxOutputTokens }),
			providerOptions,
		};
	}
}

function failed(failure: ModelFailure): ModelEvent {
	return { type: "outcome", outcome: { status: "error", failure } };
}
