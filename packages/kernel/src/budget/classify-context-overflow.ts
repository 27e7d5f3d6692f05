import { ContextOverflowError, CtxkitError, ErrorCodes } from '@ctxkit/core';

/** How one provider family words a refusal for length, and where its numbers are. */
interface OverflowWording {
  pattern: RegExp;
  /** Group of the model's limit in `pattern`, when it has one. */
  limit?: number;
  /** Group of the tokens the provider counted, when it has one. */
  actual?: number;
}

/*
 * The refusals for length of the providers ctxkit talks to. Numbers may carry thousands separators.
 * OpenAI (and OpenAI-compatible servers that copy it): "This model's maximum context length is 8192
 * tokens. However, your messages resulted in 9000 tokens." (code context_length_exceeded).
 * Anthropic: "prompt is too long: 210000 tokens > 200000 maximum". Gemini: "The input token count
 * (1200000) exceeds the maximum number of tokens allowed (1048576)". Ollama and llama.cpp server:
 * "the request exceeds the available context size", "input length exceeds the context length".
 */
const N = '(\\d[\\d,]*)';
const WORDINGS: readonly OverflowWording[] = [
  { pattern: new RegExp(`prompt is too long:\\s*${N}\\s*tokens\\s*>\\s*${N}\\s*maximum`, 'i'), actual: 1, limit: 2 },
  {
    pattern: new RegExp(
      `input token count\\s*\\(?${N}\\)?\\s*exceeds the maximum number of tokens allowed\\s*\\(?${N}\\)?`,
      'i',
    ),
    actual: 1,
    limit: 2,
  },
  { pattern: new RegExp(`maximum context length is\\s*${N}\\s*tokens`, 'i'), limit: 1 },
  { pattern: /context[_ ]length[_ ]exceeded/i },
  { pattern: /prompt is too long/i },
  { pattern: /input token count.{0,40}exceeds the maximum number of tokens/i },
  { pattern: /exceeds the available context size/i },
  { pattern: /exceed_context_size_error/i },
  { pattern: /input length exceeds the context length/i },
  { pattern: /exceeds the (?:model's )?context (?:length|window|size)/i },
];

/** OpenAI's count: "(9000 in the messages", else "resulted in 9000 tokens", else "requested 10000 tokens". */
const OPENAI_ACTUAL = [
  new RegExp(`\\(${N} in the messages`, 'i'),
  new RegExp(`resulted in\\s*${N}\\s*tokens`, 'i'),
  new RegExp(`requested\\s*${N}\\s*tokens`, 'i'),
];
/** llama.cpp server's error body: `"n_prompt_tokens": 5000, "n_ctx": 4096`. */
const LLAMA_CPP_ACTUAL = /"n_prompt_tokens"\s*:\s*(\d+)/;
const LLAMA_CPP_LIMIT = /"n_ctx"\s*:\s*(\d+)/;

function numberAt(match: RegExpMatchArray | null, group: number | undefined): number | undefined {
  if (!match || group === undefined || match[group] === undefined) return undefined;
  const value = Number(match[group].replace(/,/g, ''));
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/**
 * The provider's words in an LLM error: its message without the client's prefix (name, HTTP status) and the fix, and
 * the body excerpt.
 */
function providerText(error: CtxkitError): { message: string; body: string } {
  const prefix = typeof error.details.client === 'string' ? `${error.details.client}: ` : undefined;
  let message = error.message.split(' Fix: ')[0] ?? error.message;
  if (prefix !== undefined && message.startsWith(prefix)) message = message.slice(prefix.length);
  message = message.replace(/^HTTP \d{3}: /, '');
  const body = typeof error.details.body === 'string' ? error.details.body : '';
  return { message, body };
}

/**
 * The typed error for a provider's refusal of a request as longer than the model's context, or
 * `undefined` when `error` is something else. Reads what the LLM clients throw (`LLMRequestError`:
 * status, message and body excerpt) whatever the client, and passes a `ContextOverflowError` through.
 * @param client the client's name, for an error whose details do not carry it
 */
export function classifyContextOverflow(error: unknown, client: string): ContextOverflowError | undefined {
  if (ContextOverflowError.isInstance(error)) return error;
  if (!CtxkitError.isInstance(error) || error.code !== ErrorCodes.LLM_REQUEST_FAILED) return undefined;
  const { message, body } = providerText(error);
  const text = `${message}\n${body}`;
  for (const wording of WORDINGS) {
    const match = text.match(wording.pattern);
    if (!match) continue;
    let limit = numberAt(match, wording.limit);
    let actual = numberAt(match, wording.actual);
    if (actual === undefined) for (const pattern of OPENAI_ACTUAL) actual ??= numberAt(text.match(pattern), 1);
    limit ??= numberAt(text.match(LLAMA_CPP_LIMIT), 1);
    actual ??= numberAt(text.match(LLAMA_CPP_ACTUAL), 1);
    const status = typeof error.details.status === 'number' ? error.details.status : undefined;
    return new ContextOverflowError(
      {
        client: typeof error.details.client === 'string' && error.details.client !== '' ? error.details.client : client,
        providerMessage: message,
        ...(limit !== undefined ? { limit } : {}),
        ...(actual !== undefined ? { actual } : {}),
        ...(status !== undefined ? { status } : {}),
      },
      { cause: error },
    );
  }
  return undefined;
}
