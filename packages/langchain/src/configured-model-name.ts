/**
 * The model name a LangChain model or embeddings instance was configured with: its `model` field,
 * else its `modelName` field (the older name many integrations still set), else `undefined`.
 */
export function configuredModelName(instance: object): string | undefined {
  const fields = instance as { model?: unknown; modelName?: unknown };
  if (typeof fields.model === 'string' && fields.model !== '') return fields.model;
  if (typeof fields.modelName === 'string' && fields.modelName !== '') return fields.modelName;
  return undefined;
}
