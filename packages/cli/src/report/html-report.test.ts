import { callObservation } from '../__fixtures__/call-observation';
import type { CallObservation } from '../lab/call-observation';
import { summarizeObservations } from '../lab/strategy-summary';
import { renderComparisonTable } from './comparison-table';
import { factsCostPoints, frontierOf } from './facts-cost-points';
import { renderHtmlReport } from './html-report';

/** Call `call` of a growing history: `sentTokens` sent, `call` messages dropped, one of two needed facts held. */
function observation(call: number, sentTokens: number): CallObservation {
  return callObservation({
    call,
    historyLength: call * 2 + 1,
    sentTokens,
    everythingTokens: 1000 + call * 500,
    available: 3175,
    reduced: call > 0,
    dropped: call,
    sections: { system: 500, tools: 0, dynamic: 0, memory: 0, history: sentTokens - 500 },
    factsActive: 2,
    factsPresent: 1,
    fitsWhole: false,
  });
}

describe('renderHtmlReport', () => {
  const summary = summarizeObservations(
    'std-sliding-window-strategy',
    'std-sliding-window-strategy',
    'tau-bench-airline',
    4096,
    1,
    [observation(0, 1000), observation(1, 1500), observation(2, 1800)],
  );
  const context = {
    title: 'ctxkit strategy comparison',
    llmDescription: 'offline fallbacks, no LLM',
    counterDescription: 'gpt-tokenizer o200k_base',
    strategyNotes: { 'std-sliding-window-strategy': 'Sliding window </script><b>' },
    generatedAt: '2026-01-01T00:00:00.000Z',
  };
  const html = renderHtmlReport([summary], context);

  it('is self-contained: the chart library and the data are inlined, nothing is fetched', () => {
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).not.toMatch(/<link[^>]+href=/i);
    expect(html).toContain('id="ctxkit-data"');
    expect(html.length).toBeGreaterThan(150_000);
    expect(html).toContain('new Chart(');
  });

  it(
    'has, per transcript, the facts-against-cost chart, one tokens chart per strategy and the table in a box that ' +
      'scrolls',
    () => {
      expect(html).toContain('<h2>tau-bench-airline</h2>');
      expect(html).toContain('No chart of facts kept against cost: no input price was given.');
      expect(html).toContain('<canvas id="tokens-0-0"');
      expect(html).not.toContain('<canvas id="tokens-0-1"');
      expect(html).toMatch(/<div class="table-scroll"[^>]*><table>/);
      expect(html).toMatch(
        /<td>std-sliding-window-strategy<\/td><td>50.0% of 6<\/td><td>0.0%<\/td><td>n\/a<\/td><td>1,433<\/td>/,
      );
    },
  );

  it(
    'shows the cache hits over all calls, the cached prefix share and the input cost per conversation with and ' +
      'without cache hits',
    () => {
      const repeated = (call: number, sentTokens: number, repeatedPrefixTokens: number) => ({
        ...observation(call, sentTokens),
        repeatedPrefixTokens,
        fitsWhole: false,
      });
      const priced = summarizeObservations(
        'std-sliding-window-strategy',
        'std-sliding-window-strategy',
        'tau-bench-airline',
        4096,
        1,
        [repeated(0, 1_000_000, 0), repeated(1, 1_000_000, 800_000)],
        {
          key: 'anthropic:claude-sonnet-4',
          price: { input: 3, cachedInput: 0.3, cacheWrite: 3.75 },
        },
      );
      expect(priced.repeatedPrefixShare).toBeCloseTo(0.8);
      // Over all calls the first one, which reads nothing, counts too: 800,000 of 2,000,000 tokens.
      expect(priced.cacheHitRatio).toBeCloseTo(0.4);
      expect(priced.inputCostPerConversation).toEqual({
        price: 'anthropic:claude-sonnet-4',
        withoutCache: 6,
        withCache: expect.closeTo(3.75 + 0.8 * 0.3 + 0.2 * 3.75),
        cacheTtl: '5m',
      });
      const page = renderHtmlReport([priced], context);
      expect(page).toContain('<td>80.0%</td>');
      expect(page).toMatch(/<td>std-sliding-window-strategy<\/td><td>50.0% of 4<\/td><td>40.0%<\/td><td>\$4.74/);
      expect(renderComparisonTable([priced])).toMatch(/│ 50\.0% +│ 40\.0% +│ \$4\.74/);
      expect(renderComparisonTable([priced], { wide: true })).toMatch(/│ 50\.0% +│ 40\.0% +│ 80\.0% +│ \$4\.74/);
      expect(page).toContain('$4.74 · $6.00 <small>(anthropic:claude-sonnet-4)</small>');
      expect(renderComparisonTable([priced], { wide: true })).toContain('$4.74 · $6.00');
      expect(renderComparisonTable([priced])).toContain('$4.74');
    },
  );

  it('lists why calls were rejected, per strategy, escaped', () => {
    const rejecting = summarizeObservations(
      'pinned-note-strategy',
      'pinned-note-strategy',
      'tau-bench-airline',
      4096,
      1,
      [
        observation(0, 1000),
        {
          ...observation(1, 0),
          error: {
            code: 'CTXKIT_BUDGET_EXCEEDED',
            message: 'tools need <b>900</b> tokens. Fix: Send fewer tools.\nsecond line',
          },
        },
      ],
    );
    const page = renderHtmlReport([summary, rejecting], { ...context, strategyNotes: {} });
    expect(page).toContain('<h3 class="bad">Rejected calls</h3>');
    expect(page).toContain('<strong>pinned-note-strategy</strong>: 1 of 2 calls rejected');
    expect(page).toContain(
      '<code>CTXKIT_BUDGET_EXCEEDED</code> (1): tools need &lt;b&gt;900&lt;/b&gt; tokens. Fix: Send fewer tools.</li>',
    );
    expect(page).not.toContain('second line');
    expect(html).not.toContain('Rejected calls');
  });

  it('escapes notes and embedded data', () => {
    expect(html).toContain('Sliding window &lt;/script&gt;&lt;b&gt;');
    const data = html.slice(html.indexOf('id="ctxkit-data">'));
    expect(data.slice(0, data.indexOf('</script>'))).not.toContain('<b>');
  });
});

describe('the control columns (undoable epochs, summary receipts)', () => {
  const withReceipt = (call: number, from: number, to: number, reprompted = false): CallObservation => ({
    ...observation(call, 1000),
    summaryReceipt: { from, to, kept: 3, dropped: 1, reprompted },
  });
  const epoch = (id: string, kind: 'fold' | 'trim') => ({ id, kind, at: 0, turn: 1, description: `${kind} ${id}` });

  it('counts each receipt once per conversation and the epochs by kind, in the HTML and the terminal tables', () => {
    const summary = summarizeObservations(
      'std-summarization-strategy',
      'std-summarization-strategy',
      'tau-bench-airline',
      4096,
      1,
      // the first receipt rides along on three payloads, the second on two
      [
        withReceipt(0, 0, 6),
        withReceipt(1, 0, 6),
        withReceipt(2, 0, 6),
        withReceipt(3, 6, 12, true),
        withReceipt(4, 6, 12, true),
      ],
      undefined,
      [epoch('e1', 'fold'), epoch('e2', 'fold'), epoch('e3', 'trim')],
    );
    expect(summary.control).toEqual({
      epochs: 3,
      epochsByKind: { fold: 2, trim: 1 },
      receipts: 2,
      reprompted: 1,
      itemsKept: 6,
      itemsDropped: 2,
      pins: null,
    });
    const html = renderHtmlReport([summary], {
      title: 't',
      llmDescription: 'l',
      counterDescription: 'c',
      strategyNotes: {},
      generatedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(html).toContain(
      '<td>3 <small>(fold 2 · trim 1)</small></td><td>2 <small>(1 re-prompted; 6 items kept · 2 dropped)</small></td>',
    );
    expect(renderComparisonTable([summary], { wide: true })).toContain('3 · 2 · n/a');
  });

  it('counts the calls made with pins and those whose payload held every pin', () => {
    const pinned = (call: number, active: number, kept: number): CallObservation => ({
      ...observation(call, 1000),
      pins: { active, kept },
    });
    const summary = summarizeObservations('s', 's', 'd', 4096, 1, [
      pinned(0, 0, 0),
      pinned(1, 1, 1),
      pinned(2, 2, 2),
      pinned(3, 2, 1),
    ]);
    expect(summary.control.pins).toEqual({ calls: 3, kept: 2 });
    const html = renderHtmlReport([summary], {
      title: 't',
      llmDescription: 'l',
      counterDescription: 'c',
      strategyNotes: {},
      generatedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(html).toContain('<td class="bad">2/3</td>');
    expect(renderComparisonTable([summary], { wide: true })).toContain('0 · 0 · 2/3');
  });
});

describe('the chart of facts kept against input cost', () => {
  const price = { key: 'openai:gpt-4o', price: { input: 2.5, cachedInput: 1.25 } };
  /** A strategy that sends `tokens` per call and holds `present` of 4 facts at each of `calls` calls. */
  const strategy = (label: string, dataset: string, tokens: number, present: number, calls = 3) =>
    summarizeObservations(
      label,
      label,
      dataset,
      4096,
      2,
      Array.from({ length: calls }, (_, call) => ({
        ...observation(call, tokens + call * 100),
        factsActive: 4,
        factsPresent: present,
        repeatedPrefixTokens: call * 50,
      })),
      price,
    );
  const summaries = [
    strategy('std-sliding-window-strategy', 'tau-bench-airline', 1200, 3),
    strategy('std-summarization-strategy', 'tau-bench-airline', 1500, 4),
    strategy('std-sliding-window-strategy {"cutBackRatio":0.5}', 'tau-bench-airline', 1100, 2, 4),
    strategy('std-sliding-window-strategy', 'openhands', 9000, 1),
    strategy('std-recall-strategy', 'openhands', 8000, 4),
  ];
  const page = renderHtmlReport(summaries, {
    title: 't',
    llmDescription: 'l',
    counterDescription: 'c',
    strategyNotes: {},
    generatedAt: '2026-01-01T00:00:00.000Z',
  });
  const embedded = JSON.parse(
    page.slice(
      page.indexOf('id="ctxkit-data">') + 'id="ctxkit-data">'.length,
      page.indexOf('</script>', page.indexOf('id="ctxkit-data">')),
    ),
  ) as {
    datasets: Array<{ dataset: string; factsCost: Array<{ label: string; cost: number; factsKept: number }> }>;
  };

  /**
   * The report's table of one transcript, as label → [fact retention cell, cost cell] (the cache hits between them).
   */
  function tableOf(dataset: string): Map<string, { facts: string; cost: string }> {
    const section = page.slice(page.indexOf(`<h2>${dataset}</h2>`));
    const table = section.slice(section.indexOf('<tbody>'), section.indexOf('</tbody>'));
    const cells = [...table.matchAll(/<tr>(.*?)<\/tr>/g)].map((row) =>
      [...row[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((cell) => cell[1]!),
    );
    return new Map(cells.map((row) => [row[0]!.replace(/&quot;/g, '"'), { facts: row[1]!, cost: row[3]! }]));
  }

  it(
    'has one point per strategy and configuration of each transcript, at the facts kept and the cost its table row ' +
      'shows',
    () => {
      expect(embedded.datasets.map((set) => set.dataset)).toEqual(['tau-bench-airline', 'openhands']);
      for (const set of embedded.datasets) {
        const table = tableOf(set.dataset);
        expect(set.factsCost.map((point) => point.label)).toEqual([...table.keys()]);
        for (const point of set.factsCost) {
          const row = table.get(point.label)!;
          expect(row.facts.startsWith(`${point.factsKept.toFixed(1)}% of `)).toBe(true);
          expect(row.cost.startsWith(`$${point.cost.toFixed(4)} · `)).toBe(true);
        }
        expect(page).toContain(`<canvas id="facts-cost-${embedded.datasets.indexOf(set)}"`);
      }
      // the points differ as the strategies do: 75% and 100% of the facts, 50% for the configuration
      expect(embedded.datasets[0]!.factsCost.map((point) => point.factsKept)).toEqual([75, 100, 50]);
      expect(embedded.datasets[1]!.factsCost.map((point) => point.factsKept)).toEqual([25, 100]);
    },
  );

  it('draws the tokens per call as one small chart per strategy of each transcript', () => {
    expect(page.match(/<canvas id="tokens-0-\d+"/g)).toHaveLength(3);
    expect(page.match(/<canvas id="tokens-1-\d+"/g)).toHaveLength(2);
    expect(page).toContain('aria-label="Tokens sent per model call, std-recall-strategy, openhands"');
  });

  it('leaves out a strategy without checkable facts, and the chart when no strategy has any', () => {
    const factless = summarizeObservations(
      's',
      's',
      'd',
      4096,
      1,
      [{ ...observation(0, 1000), factsActive: 0, factsPresent: 0 }],
      price,
    );
    expect(factsCostPoints([factless, summaries[0]!])).toEqual([
      {
        label: 'std-sliding-window-strategy',
        strategyId: 'std-sliding-window-strategy',
        cost: summaries[0]!.inputCostPerConversation!.withCache,
        factsKept: 75,
        frontier: true,
      },
    ]);
    const none = renderHtmlReport([factless], {
      title: 't',
      llmDescription: 'l',
      counterDescription: 'c',
      strategyNotes: {},
      generatedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(none).not.toContain('<canvas id="facts-cost-0"');
    expect(none).toContain('No chart of facts kept against cost: this transcript has no checkable facts.');
  });
});

describe('the frontier of a sweep', () => {
  const price = { key: 'anthropic:claude-sonnet-4', price: { input: 3, cachedInput: 0.3, cacheWrite: 3.75 } };
  /** One configuration: `tokens` sent per call, `repeated` of them read from the cache, `present` of 4 facts held. */
  const configuration = (strategyId: string, values: string, tokens: number, repeated: number, present: number) =>
    summarizeObservations(
      strategyId,
      values ? `${strategyId} ${values}` : strategyId,
      'tau-bench-airline',
      4000,
      1,
      Array.from({ length: 3 }, (_, call) => ({
        ...observation(call, tokens),
        factsActive: 4,
        factsPresent: present,
        repeatedPrefixTokens: call > 0 ? repeated : 0,
      })),
      price,
    );
  const sw = 'std-sliding-window-strategy';
  const rows = [
    configuration(sw, '', 2000, 1000, 3),
    // cheaper at the same facts: the defaults leave the frontier
    configuration(sw, '{"cutBackRatio":0.6}', 1800, 1500, 3),
    configuration(sw, '{"cutBackRatio":0.6,"keepFirstShare":0.3}', 1900, 1500, 4), // more facts for a little more
    configuration(sw, '{"cutBackRatio":0.4}', 1600, 1500, 2), // cheapest, fewest facts: on the frontier
    configuration(sw, '{"cutBackRatio":0.8}', 2000, 1000, 2), // dominated by the defaults
    configuration('std-recall-strategy', '', 2500, 2000, 3), // another strategy: its own frontier
  ];
  const page = renderHtmlReport(rows, {
    title: 't',
    llmDescription: 'l',
    counterDescription: 'c',
    strategyNotes: {},
    generatedAt: '2026-01-01T00:00:00.000Z',
  });
  const start = page.indexOf('id="ctxkit-data">') + 'id="ctxkit-data">'.length;
  const embedded = JSON.parse(page.slice(start, page.indexOf('</script>', start))) as {
    datasets: Array<{
      factsCost: Array<{ label: string; strategyId: string; cost: number; factsKept: number; frontier: boolean }>;
    }>;
  };
  const points = embedded.datasets[0]!.factsCost;
  const table = page.slice(page.indexOf('<tbody>'), page.indexOf('</tbody>'));
  const cells = [...table.matchAll(/<tr>(.*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((cell) => cell[1]!),
  );

  it(
    "has one point per configuration at its table row's facts and cost, and marks the same rows on the frontier as " +
      'the chart',
    () => {
      expect(page).toContain('<th>on the frontier</th>');
      expect(points.map((point) => point.label)).toEqual(cells.map((row) => row[0]!.replace(/&quot;/g, '"')));
      points.forEach((point, index) => {
        const row = cells[index]!;
        expect(row[1]!.startsWith(`${point.factsKept.toFixed(1)}% of `)).toBe(true);
        expect(row[3]!.startsWith(`$${point.cost.toFixed(4)} · `)).toBe(true);
        expect(row[row.length - 1]).toBe(point.frontier ? 'yes' : '');
      });
    },
  );

  it(
    'puts a configuration on the frontier exactly when no other configuration of its strategy keeps as many facts ' +
      'for less',
    () => {
      expect(points.map((point) => point.frontier)).toEqual([false, true, true, true, false, true]);
      for (const point of points) {
        const better = points.filter(
          (other) =>
            other !== point &&
            other.strategyId === point.strategyId &&
            other.cost <= point.cost &&
            other.factsKept >= point.factsKept &&
            (other.cost < point.cost || other.factsKept > point.factsKept),
        );
        expect(point.frontier).toBe(better.length === 0);
      }
      expect(frontierOf(points, sw).map((point) => point.label)).toEqual([
        `${sw} {"cutBackRatio":0.4}`,
        `${sw} {"cutBackRatio":0.6}`,
        `${sw} {"cutBackRatio":0.6,"keepFirstShare":0.3}`,
      ]);
    },
  );

  it('explains the frontier line, and leaves the column out of a table without a sweep', () => {
    expect(page).toContain("the line joins each strategy's frontier");
    const plain = renderHtmlReport([rows[0]!, rows[5]!], {
      title: 't',
      llmDescription: 'l',
      counterDescription: 'c',
      strategyNotes: {},
      generatedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(plain).not.toContain('on the frontier');
  });
});
