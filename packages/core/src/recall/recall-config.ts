import type { JsonSchema } from '../contracts/tool-definition';

/**
 * The `recall` settings of a strategy (the recall strategy's own, or the `recall` object the
 * summarization and entity-extraction strategies accept). The JSON Schema below is the source of the
 * defaults; plugin manifests embed it as it is.
 * @see docs/strategies/recall.md
 */
export interface RecallConfig {
  /**
   * Share of the room (the budget left after the system prompt, tools and dynamic context) that
   * recalled turns may take when the history no longer fits; the newest history fills the rest, and
   * whatever recall leaves unused. A cap: how much of it recall takes is weighed turn by turn (older
   * turns take recent turns' room only when they bear more on the newest message).
   * @default 0.9
   */
  share: number;
  /**
   * Tokens of the newest history the window keeps before recall may take any of its room (all of the
   * room when it is smaller): in a small window the present turn needs every token.
   * @default 1000
   */
  minRecentTokens: number;
  /**
   * `session`: the session's own earlier turns. `resource`: every session of the resource the host
   * opened the session for (`agent.forSession(id, { resourceId })`), never another resource's.
   * @default 'session'
   */
  scope: 'session' | 'resource';
  /** `auto`: rank by meaning too when the agent has an embedder. `off`: by words only. @default 'auto' */
  embeddings: 'auto' | 'off';
  /**
   * How long a compose waits for the question's vector before it ranks by words alone (and skips the
   * embedder for a while after such a failure).
   * @default 2000
   */
  embeddingTimeoutMs: number;
  /** Longest recall text of one unit (a message, or a call with its results), in characters. @default 6000 */
  maxUnitChars: number;
}

/** The JSON Schema of {@link RecallConfig}, defaults included. */
export const RECALL_CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    share: {
      type: 'number',
      minimum: 0,
      maximum: 0.95,
      default: 0.9,
      description:
        'Share of the room recalled turns may take when the history no longer fits; the newest history fills the ' +
        'rest and whatever recall leaves.',
    },
    minRecentTokens: {
      type: 'integer',
      minimum: 0,
      default: 1000,
      description:
        'Tokens of the newest history the window keeps before recall may take any of its room (all of the room when ' +
        'it is smaller).',
    },
    scope: {
      enum: ['session', 'resource'],
      default: 'session',
      description:
        "session: the session's own earlier turns. resource: every session opened for the same resource " +
        '(agent.forSession(id, { resourceId })).',
    },
    embeddings: {
      enum: ['auto', 'off'],
      default: 'auto',
      description: 'auto: rank by meaning too when the agent has an embedder; off: by words only.',
    },
    embeddingTimeoutMs: {
      type: 'integer',
      minimum: 1,
      default: 2000,
      description: "How long a compose waits for the question's vector before ranking by words alone.",
    },
    maxUnitChars: {
      type: 'integer',
      minimum: 200,
      default: 6000,
      description:
        'Longest recall text of one unit (a message, or a call with its results), in characters; a longer one keeps ' +
        'its head and tail.',
    },
  },
};

/** The defaults of {@link RecallConfig}, read from the schema. */
export function defaultRecallConfig(): RecallConfig {
  const properties = RECALL_CONFIG_SCHEMA.properties as Record<string, { default: unknown }>;
  return Object.fromEntries(
    Object.entries(properties).map(([key, value]) => [key, value.default]),
  ) as unknown as RecallConfig;
}
