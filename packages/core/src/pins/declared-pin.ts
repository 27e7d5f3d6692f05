/**
 * A pin an agent manifest declares (its `"pins"`), applied to every session of the agent: a message
 * of the host's history (`"first-user"`: the first user message, `"first"`: the first message, or an
 * index), or a text. See docs/03-plugin-json.md and docs/14-controlling-what-survives.md.
 */
export type DeclaredPin =
  { message: 'first-user' | 'first' | number; label?: string } | { text: string; label?: string };
