import { type Attributes, context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

import type { ILLMClient, LLMCompletion, LLMCompletionRequest } from '../contracts/llm-client';
import { ctxkitInstruments } from './ctxkit-instruments';
import { CTXKIT_INSTRUMENTATION_SCOPE, CtxkitAttributes, GenAiAttributes } from './telemetry-names';

/** Whose helper-model calls are traced. */
export interface HelperClientOwner {
  agentId: string;
  /** The strategy's plugin id. */
  strategyId: string;
}

/**
 * The agent's model client as its strategy sees it: every call (a summary, an extraction, a
 * compaction) is a GenAI `chat {model}` client span, a child of the span active at the call (the
 * compose that waited for it, or the turn whose end started it), and its duration is recorded in the
 * `ctxkit.helper.duration` histogram. The call itself goes to `client` unchanged.
 */
export function tracedHelperClient(client: ILLMClient, owner: HelperClientOwner): ILLMClient {
  const traced: ILLMClient = {
    get name() {
      return client.name;
    },
    get defaultModel() {
      return client.defaultModel;
    },
    get offline() {
      return client.offline;
    },
    get providerCompaction() {
      return client.providerCompaction;
    },
    complete: (request) => completeTraced(client, owner, request),
  };
  return traced;
}

async function completeTraced(
  client: ILLMClient,
  owner: HelperClientOwner,
  request: LLMCompletionRequest,
): Promise<LLMCompletion> {
  const model = request.model ?? client.defaultModel;
  const attributes: Attributes = {
    [GenAiAttributes.operationName]: 'chat',
    [GenAiAttributes.requestModel]: model,
    [GenAiAttributes.agentId]: owner.agentId,
    [CtxkitAttributes.strategyId]: owner.strategyId,
    [CtxkitAttributes.helperModelOffline]: client.offline,
  };
  const started = performance.now();
  const span = trace
    .getTracer(CTXKIT_INSTRUMENTATION_SCOPE)
    .startSpan(`chat ${model}`, { kind: SpanKind.CLIENT, attributes });
  const metricAttributes: Attributes = {
    [GenAiAttributes.requestModel]: model,
    [CtxkitAttributes.strategyId]: owner.strategyId,
  };
  try {
    const completion = await context.with(trace.setSpan(context.active(), span), () => client.complete(request));
    if (span.isRecording()) {
      span.setAttributes({
        [GenAiAttributes.responseModel]: completion.model,
        // The conventions count cached input tokens as input tokens.
        [GenAiAttributes.usageInputTokens]:
          completion.usage.input_tokens + completion.usage.cache_read_tokens + completion.usage.cache_creation_tokens,
        [GenAiAttributes.usageOutputTokens]: completion.usage.output_tokens,
        ...(completion.finishReason !== undefined
          ? { [GenAiAttributes.responseFinishReasons]: [completion.finishReason] }
          : {}),
      });
    }
    ctxkitInstruments()?.helperDuration.record((performance.now() - started) / 1000, metricAttributes);
    return completion;
  } catch (error) {
    const type = errorType(error);
    ctxkitInstruments()?.helperDuration.record((performance.now() - started) / 1000, {
      ...metricAttributes,
      [GenAiAttributes.errorType]: type,
    });
    if (span.isRecording()) {
      span.setAttribute(GenAiAttributes.errorType, type);
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error | null)?.message ?? String(error) });
    }
    throw error;
  } finally {
    span.end();
  }
}

function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return (error as Error | null)?.name ?? 'Error';
}
