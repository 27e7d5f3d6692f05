/** The README's example agent manifest, unchanged: an agent on the summarization strategy. */
export const SUMMARIZING_AGENT_MANIFEST = {
  id: 'my-complex-agent',
  contextStrategy: {
    type: 'plugin',
    pluginId: 'std-summarization-strategy',
    config: { compressionModel: 'gemini-1.5-flash', threshold: 20 },
  },
};
