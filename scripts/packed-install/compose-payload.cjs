// Composes one payload through the installed runtime with an installed standard plugin and with the
// scaffolded strategy, and checks what each sent. Usage: node compose-payload.cjs <strategy dir> <plugin id>
const { createContextRuntime } = require('@ctxkit/core');

const [strategyDir, scaffoldedId] = process.argv.slice(2);
const note = 'Always answer in French.';

function fail(message) {
  console.error(message);
  process.exit(1);
}

async function compose(runtime, pluginId, config) {
  const agent = await runtime.loadAgent({
    id: `packed-${pluginId}`.slice(0, 64),
    contextStrategy: { type: 'plugin', pluginId, config },
  });
  try {
    const payload = await agent
      .forSession('packed-check')
      .composePayload('You are helpful.', [{ role: 'user', content: 'Hello' }], []);
    return payload.messages.map((message) => message.content);
  } finally {
    await agent.dispose();
  }
}

(async () => {
  const runtime = await createContextRuntime({ pluginDirs: [strategyDir] });
  const plugins = runtime.listPlugins();
  const standard = plugins.find((plugin) => plugin.id === 'std-sliding-window-strategy');
  if (!standard || !standard.source.startsWith('package @ctxkit/'))
    fail(
      `The installed @ctxkit/strategy-sliding-window was not discovered; plugins ` +
        `found: ${plugins.map((p) => `${p.id} (${p.source})`).join(', ')}`,
    );
  if (!plugins.some((plugin) => plugin.id === scaffoldedId))
    fail(
      `The scaffolded ${scaffoldedId} was not discovered in ${strategyDir}; plugins ` +
        `found: ${plugins.map((p) => p.id).join(', ')}`,
    );

  const windowed = await compose(runtime, 'std-sliding-window-strategy', { maxContextTokens: 4096 });
  if (JSON.stringify(windowed) !== JSON.stringify(['You are helpful.', 'Hello']))
    fail(`std-sliding-window-strategy composed ${JSON.stringify(windowed)}`);
  const pinned = await compose(runtime, scaffoldedId, { maxContextTokens: 4096, note });
  if (JSON.stringify(pinned) !== JSON.stringify(['You are helpful.', note, 'Hello']))
    fail(`${scaffoldedId} composed ${JSON.stringify(pinned)}`);
  console.log(`std-sliding-window-strategy (${standard.source}): ${JSON.stringify(windowed)}`);
  console.log(`${scaffoldedId}: ${JSON.stringify(pinned)}`);
})().catch((error) => fail(error instanceof Error ? (error.stack ?? error.message) : String(error)));
