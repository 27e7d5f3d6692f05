import type { StrategySummary } from '../lab/strategy-summary';
import { chartLibrarySource } from './chart-library';
import { pinsKept } from './comparison-table';
import { escapeHtml } from './escape-html';
import { type FactsCostPoint, factsCostPoints } from './facts-cost-points';
import { formatDollars, formatNumber, formatShare } from './format-number';

/** What a report says besides the numbers. */
export interface ReportContext {
  title: string;
  /** Which model produced summaries and extractions (or the offline fallbacks, named as such). */
  llmDescription: string;
  counterDescription: string;
  /** One note per strategy label. */
  strategyNotes: Record<string, string>;
  generatedAt: string;
}

const COLORS = ['#2563eb', '#16a34a', '#ea580c', '#9333ea', '#0891b2', '#dc2626', '#ca8a04', '#4b5563'];

/** JSON safe to embed in a <script> element. */
function embedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * Renders the comparison as one self-contained HTML file: the Chart.js library and the data are
 * inlined, so the report opens in a browser with no network. Per transcript: facts kept against input
 * cost per conversation (one labelled point per strategy), the tokens sent per model call as small
 * multiples (one chart per strategy, same scales), the mean tokens per call, and the table, which
 * scrolls sideways inside its own box on a narrow screen.
 */
export function renderHtmlReport(summaries: readonly StrategySummary[], context: ReportContext): string {
  const datasets = [...new Set(summaries.map((s) => s.dataset))];
  const labels = [...new Set(summaries.map((s) => s.label))];
  // The configurations of one strategy share its colour.
  const colorKeys = [...new Set(summaries.map(colorKey))];
  const colorOf = (row: StrategySummary) => COLORS[colorKeys.indexOf(colorKey(row)) % COLORS.length]!;
  const data = {
    datasets: datasets.map((dataset) => {
      const rows = summaries.filter((s) => s.dataset === dataset);
      return {
        dataset,
        rows,
        factsCost: factsCostPoints(rows),
        price: rows.find((row) => row.inputCostPerConversation)?.inputCostPerConversation?.price ?? null,
      };
    }),
    colors: Object.fromEntries([
      ...summaries.map((row) => [row.label, colorOf(row)]),
      ...summaries.map((row) => [row.strategyId, colorOf(row)]),
    ]),
  };
  const sections = data.datasets
    .map(({ dataset, rows, factsCost }, index) => {
      const swept = isSweep(factsCost);
      const first = rows[0]!;
      const name = escapeHtml(dataset);
      const scatter = factsCost.length
        ? `<div class="chart"><canvas id="facts-cost-${index}" role="img" aria-label="Facts kept against input ` +
          `cost per conversation, ${name}"></canvas></div>`
        : `<p class="muted">No chart of facts kept against ` +
          `cost: ${
            rows.some((row) => row.factRetention !== null)
              ? 'no input price was given'
              : 'this transcript ' + 'has no checkable facts'
          }.</p>`;
      const multiples = rows
        .map(
          (row, strategy) =>
            `<figure class="chart multiple"><canvas id="tokens-${index}-${strategy}" role="img" aria-label="Tokens ` +
            `sent per model call, ${escapeHtml(row.label)}, ${name}"></canvas></figure>`,
        )
        .join('');
      return (
        `
<section>
  <h2>${name}</h2>
  <p class="muted">${formatNumber(first.conversations)} conversations, window ${formatNumber(first.window)} ` +
        `tokens; payload ceiling ${formatNumber(first.budget)} tokens (the window minus the output reservation; ` +
        `the standard strategies also keep a 10% safety margin free).</p>
  <h3>Facts kept against input cost</h3>
  ${
    swept
      ? `<p class="muted">One point per configuration; the line joins each strategy's frontier (no other ` +
        `configuration of it keeps as many facts for less), each frontier point labelled with its configuration.</p>`
      : ''
  }
  ${scatter}
  <h3>Tokens sent per model call</h3>
  <p class="muted">One chart per strategy, on the same scales: the mean tokens sent at each model call over the ` +
        `conversations (solid), against sending everything (grey dashes) and the payload ceiling (red dots).</p>
  <div class="multiples" id="tokens-${index}">${multiples}</div>
  <div class="chart small"><canvas id="means-${index}" role="img" aria-label="Mean tokens per ` +
        `call, ${name}"></canvas></div>
  <div class="table-scroll" role="region" aria-label="Comparison table, ${name}" ` +
        `tabindex="0">${renderTable(rows, swept ? factsCost : undefined)}</div>${renderRejections(rows)}
</section>`
      );
    })
    .join('\n');
  const notes = labels
    .map((label) => `<li><strong>${escapeHtml(label)}</strong>: ${escapeHtml(context.strategyNotes[label] ?? '')}</li>`)
    .join('\n');
  return (
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(context.title)}</title>
<style>
  *, *::before, *::after { box-sizing: border-box; }
  body { font: 14px/1.45 system-ui, -apple-system, Segoe UI, Roboto, sans-serif; margin: 24px auto; max-width: ` +
    `1200px; color: #111827; padding: 0 16px; }
  h1 { font-size: 22px; margin-bottom: 4px; }
  h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #e5e7eb; padding-bottom: 4px; }
  h3 { font-size: 15px; margin: 20px 0 4px; }
  p, li, h1, h2, h3 { overflow-wrap: anywhere; }
  .muted { color: #6b7280; }
  .chart { position: relative; height: 360px; margin: 12px 0; min-width: 0; }
  .chart.small { height: 220px; }
  .multiples { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(300px, 100%), 1fr)); gap: 8px 16px; }
  .chart.multiple { height: 210px; margin: 0; }
  .table-scroll { overflow-x: auto; max-width: 100%; margin-top: 8px; }
  table { border-collapse: separate; border-spacing: 0; min-width: 100%; font-size: 12.5px; border-top: 1px solid ` +
    `#e5e7eb; }
  th, td { border-right: 1px solid #e5e7eb; border-bottom: 1px solid #e5e7eb; padding: 4px 6px; text-align: right; }
  th:first-child, td:first-child { border-left: 1px solid #e5e7eb; }
  th { background: #f9fafb; font-weight: 600; }
  td small { display: block; color: #6b7280; }
  td { white-space: nowrap; }
  th:first-child, td:first-child { text-align: left; position: sticky; left: 0; background: #fff; }
  th:first-child { background: #f9fafb; }
  .bad { color: #b91c1c; font-weight: 600; }
  ul.notes li, ul.rejections li { margin: 4px 0; }
</style>
</head>
<body>
<h1>${escapeHtml(context.title)}</h1>
<p class="muted">Generated ${escapeHtml(context.generatedAt)}. Summaries and ` +
    `extraction: ${escapeHtml(context.llmDescription)}. Token counts: ${escapeHtml(context.counterDescription)}.</p>
${sections}
<p class="muted">Facts kept: the share of checkable facts present in the payload composed at the moment each is ` +
    `needed. Cached prefix: the share of payload tokens, over the calls where the whole history no longer fits, ` +
    `that repeat the previous payload's start (tools, then whole messages), which a provider's prompt cache can ` +
    `serve. Input cost per conversation: the payloads' input tokens priced per million tokens from the price ` +
    `table named in each cell, with cache hits (the repeated prefix at the cached price, the rest at the input ` +
    `or cache-write price) and without; output tokens are not counted. Undoable epochs: the folds, extractions, ` +
    `compactions and trims the strategy recorded, each of which <code>session.undo(id)</code> can take back. ` +
    `Summary receipts: the model-written summaries accepted after their check, each once (a re-prompted one ` +
    `failed the check once); the offline summarizer writes none. Pins kept: the calls whose payload held every ` +
    `pin of the session verbatim, of the calls made with pins (<code>--pin-first-user</code> pins each ` +
    `conversation's first user message).</p>
<h2>Strategy notes</h2>
<ul class="notes">
${notes}
</ul>
<script>${chartLibrarySource()}</script>
<script type="application/json" id="ctxkit-data">${embedJson(data)}</script>
<script>
(function () {
  var data = JSON.parse(document.getElementById('ctxkit-data').textContent);
  window.ctxkitCharts = [];
  // Writes each point's label beside it; a label that would cover a point or a label already written moves down a line.
  var pointLabels = {
    id: 'ctxkitPointLabels',
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx, area = chart.chartArea, taken = [];
      chart.data.datasets.forEach(function (set, i) {
        if (chart.isDatasetVisible(i)) chart.getDatasetMeta(i).data.forEach(function (point) { taken.push({ left: ` +
    `point.x - 7, right: point.x + 7, y: point.y }); });
      });
      ctx.save();
      ctx.font = '12px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      chart.data.datasets.forEach(function (set, i) {
        if (!chart.isDatasetVisible(i) || set.unlabelled) return;
        chart.getDatasetMeta(i).data.forEach(function (point, j) {
          var text = set.data[j].label, width = ctx.measureText(text).width;
          // right of the point, else left of it, else centred under it
          var left = point.x + 10, y = point.y;
          if (left + width > area.right) left = point.x - 10 - width;
          if (left < area.left) {
            left = Math.min(Math.max(area.left, point.x - width / 2), area.right - width);
            y = point.y + (point.y + 16 > area.bottom ? -16 : 16);
          }
          while (taken.some(function (box) { return Math.abs(box.y - y) < 14 && left < box.right && left + width > ` +
    `box.left; })) y += 14;
          taken.push({ left: left, right: left + width, y: y });
          ctx.textAlign = 'left';
          ctx.fillStyle = set.borderColor;
          ctx.fillText(text, left, y);
        });
      });
      ctx.restore();
    }
  };
  // One labelled point per strategy; a strategy with several configurations (a sweep) as its points,
  // unlabelled, and its frontier as a line through them, each frontier point labelled with its configuration.
  function factsCostSeries(points) {
    var order = [], groups = {};
    points.forEach(function (point) {
      if (!groups[point.strategyId]) { groups[point.strategyId] = []; order.push(point.strategyId); }
      groups[point.strategyId].push(point);
    });
    var series = [];
    order.forEach(function (id) {
      var group = groups[id];
      if (group.length === 1) {
        var point = group[0], color = data.colors[point.label];
        series.push({ label: point.label, data: [{ x: point.cost, y: point.factsKept, label: point.label }], ` +
    `backgroundColor: color, borderColor: color, pointRadius: 6, pointHoverRadius: 8, clip: false });
        return;
      }
      var color = data.colors[id];
      series.push({ label: id, unlabelled: true, data: group.map(function (point) { return { x: point.cost, y: ` +
    `point.factsKept, label: point.label }; }), backgroundColor: color + '66', borderColor: color, ` +
    `pointRadius: 4, pointHoverRadius: 6, clip: false });
      var frontier = group.filter(function (point) { return point.frontier; }).sort(function (a, b) { return ` +
    `a.cost - b.cost || a.factsKept - b.factsKept; });
      series.push({ label: id + ' frontier', frontier: true, showLine: true, data: frontier.map(function (point) {
        return { x: point.cost, y: point.factsKept, label: point.label === id ? 'defaults' : ` +
    `configurationText(point.label.slice(id.length + 1)) };
      }), backgroundColor: color, borderColor: color, borderWidth: 1.5, pointRadius: 6, pointHoverRadius: 8, clip: ` +
    `false });
    });
    return series;
  }
  // {"cutBackRatio":0.6,"keepFirstShare":0.3} as cutBackRatio 0.6 · keepFirstShare 0.3
  function configurationText(json) {
    try {
      var values = JSON.parse(json);
      return Object.keys(values).map(function (key) { return key + ' ' + JSON.stringify(values[key]); }).join(' · ');
    } catch (error) {
      return json;
    }
  }
  function line(label, values, color, dash, width) {
    return { label: label, data: values, borderColor: color, backgroundColor: color, borderDash: dash, ` +
    `pointRadius: 0, borderWidth: width, tension: 0.15 };
  }
  data.datasets.forEach(function (set, index) {
    var price = set.price ? ' (' + set.price + ')' : '';
    if (set.factsCost.length) {
      window.ctxkitCharts.push(new Chart(document.getElementById('facts-cost-' + index), {
        type: 'scatter',
        data: { datasets: factsCostSeries(set.factsCost) },
        options: { animation: false, maintainAspectRatio: false, layout: { padding: { top: 8, right: 8 } },
          plugins: { title: { display: true, text: 'Better: up and to the left' },
            tooltip: { callbacks: { label: function (item) { return item.raw.label + ': ' + item.raw.y.toFixed(1) ` +
    `+ '% facts kept, $' + item.raw.x.toFixed(4) + ' per conversation'; } } } },
          scales: { x: { grace: '5%', title: { display: true, text: 'input $ per conversation, with cache hits' + ` +
    `price } },
            y: { grace: '5%', max: Math.max.apply(null, set.factsCost.map(function (point) { return ` +
    `point.factsKept; })) > 95 ? 100 : undefined, title: { display: true, text: 'facts kept (%)' } } } },
        plugins: [pointLabels]
      }));
    }
    var longest = 0, top = 0;
    set.rows.forEach(function (row) {
      longest = Math.max(longest, row.perCallSeries.length, row.everythingSeries.length);
      top = Math.max(top, row.budget, Math.max.apply(null, row.perCallSeries.concat(row.everythingSeries)));
    });
    var labels = [];
    for (var i = 0; i < longest; i++) labels.push(String(i + 1));
    set.rows.forEach(function (row, strategy) {
      var lines = [line(row.label, row.perCallSeries, data.colors[row.label], [], 2),
        line('send everything', row.everythingSeries, '#9ca3af', [6, 4], 1.5),
        line('payload ceiling', labels.map(function () { return row.budget; }), '#ef4444', [2, 3], 1)];
      window.ctxkitCharts.push(new Chart(document.getElementById('tokens-' + index + '-' + strategy), {
        type: 'line',
        data: { labels: labels, datasets: lines },
        options: { animation: false, maintainAspectRatio: false, interaction: { mode: 'index', intersect: false },
          plugins: { legend: { display: false }, title: { display: true, text: row.label, color: ` +
    `data.colors[row.label] } },
          scales: { x: { title: { display: true, text: 'model call' }, ticks: { maxTicksLimit: 8 } }, y: { ` +
    `beginAtZero: true, max: top, title: { display: true, text: 'tokens' } } } }
      }));
    });
    window.ctxkitCharts.push(new Chart(document.getElementById('means-' + index), {
      type: 'bar',
      data: { labels: set.rows.map(function (row) { return row.label; }),
        datasets: [{ label: 'mean tokens per call', data: set.rows.map(function (row) { return ` +
    `Math.round(row.tokensPerCall.mean); }), backgroundColor: set.rows.map(function (row) { return ` +
    `data.colors[row.label]; }) }] },
      options: { animation: false, maintainAspectRatio: false, indexAxis: 'y', plugins: { legend: { display: false ` +
    `}, title: { display: true, text: 'Mean tokens per call' } } }
    }));
  });
  document.body.setAttribute('data-charts-ready', String(window.ctxkitCharts.length));
})();
</script>
</body>
</html>
`
  );
}

/** Why calls were rejected, per strategy: each code with its number of calls and its message's first line. */
function renderRejections(rows: readonly StrategySummary[]): string {
  const rejecting = rows.filter((row) => row.rejectedCalls > 0);
  if (rejecting.length === 0) return '';
  const items = rejecting
    .map((row) => {
      const reasons = row.rejections
        .map(
          (reason) =>
            `<li><code>${escapeHtml(reason.code)}</code> ` +
            `(${formatNumber(reason.calls)}): ${escapeHtml(reason.message)}</li>`,
        )
        .join('');
      return (
        `<li><strong>${escapeHtml(row.label)}</strong>: ${formatNumber(row.rejectedCalls)} ` +
        `of ${formatNumber(row.calls)} calls rejected<ul>${reasons}</ul></li>`
      );
    })
    .join('\n');
  return `\n  <h3 class="bad">Rejected calls</h3>\n  <ul class="rejections">${items}</ul>`;
}

/** One column of the report's table: its heading, and its cell for a row (`<td…>…</td>`). */
interface ReportColumn {
  head: string;
  cell: (row: StrategySummary) => string;
}

const td = (html: string, bad = false) => `<td${bad ? ' class="bad"' : ''}>${html}</td>`;
const sentCalls = (row: StrategySummary) => row.calls - row.rejectedCalls;

/** The table's columns, the ones a choice rests on (facts kept, cost, tokens) first, then the details. */
const COLUMNS: readonly ReportColumn[] = [
  { head: 'strategy', cell: (row) => td(escapeHtml(row.label)) },
  {
    head: 'fact retention',
    cell: (row) =>
      td(row.factRetention === null ? 'n/a' : `${formatShare(row.factRetention)} of ${formatNumber(row.factChecks)}`),
  },
  { head: 'cache hits (all calls)', cell: (row) => td(formatShare(row.cacheHitRatio)) },
  {
    head: 'input cost per conversation (with cache hits · without)',
    cell: (row) =>
      td(
        row.inputCostPerConversation
          ? `${formatDollars(row.inputCostPerConversation.withCache)} ` +
              `· ${formatDollars(row.inputCostPerConversation.withoutCache)} ` +
              `<small>(${escapeHtml(row.inputCostPerConversation.price)}` +
              `${row.inputCostPerConversation.cacheTtl === '1h' ? ', 1-hour cache writes' : ''})</small>`
          : 'n/a',
      ),
  },
  { head: 'tokens/call mean', cell: (row) => td(formatNumber(row.tokensPerCall.mean)) },
  { head: 'p95', cell: (row) => td(formatNumber(row.tokensPerCall.p95)) },
  { head: 'max', cell: (row) => td(formatNumber(row.tokensPerCall.max)) },
  {
    head: 'saved vs everything',
    cell: (row) => td(`${formatShare(row.savedShare)} <small>(${formatNumber(row.tokensSaved)})</small>`),
  },
  { head: 'cached prefix', cell: (row) => td(formatShare(row.repeatedPrefixShare)) },
  {
    head: 'calls',
    cell: (row) =>
      td(
        `${formatNumber(row.calls)}` +
          `${
            row.rejectedCalls
              ? ` <span class="bad">(${row.rejectedCalls} ` +
                `rejected: ${escapeHtml(row.rejectedCodes.join(', '))})</span>`
              : ''
          }`,
      ),
  },
  { head: 'dropped', cell: (row) => td(formatNumber(row.dropped)) },
  { head: 'summarized', cell: (row) => td(formatNumber(row.summarized)) },
  { head: 'trimmed', cell: (row) => td(formatNumber(row.trimmed)) },
  {
    head: 'valid payloads',
    cell: (row) => td(`${sentCalls(row) - row.invalidPayloads}/${sentCalls(row)}`, row.invalidPayloads > 0),
  },
  {
    head: 'within budget',
    cell: (row) => td(`${sentCalls(row) - row.overBudgetPayloads}/${sentCalls(row)}`, row.overBudgetPayloads > 0),
  },
  { head: 'undoable epochs', cell: (row) => td(epochCell(row)) },
  { head: 'summary receipts', cell: (row) => td(receiptCell(row)) },
  {
    head: 'pins kept (calls)',
    cell: (row) => td(pinsKept(row), row.control.pins !== null && row.control.pins.kept < row.control.pins.calls),
  },
  { head: 'ms/call', cell: (row) => td(row.msPerCall.mean.toFixed(2)) },
];

/**
 * The table of one transcript; with a sweep's points, a last column says which rows are on their
 * strategy's frontier.
 */
function renderTable(rows: readonly StrategySummary[], sweep?: readonly FactsCostPoint[]): string {
  const columns: readonly ReportColumn[] = sweep
    ? [
        ...COLUMNS,
        {
          head: 'on the frontier',
          cell: (row) => td(sweep.find((point) => point.label === row.label)?.frontier ? 'yes' : ''),
        },
      ]
    : COLUMNS;
  const body = rows.map((row) => `<tr>${columns.map((column) => column.cell(row)).join('')}</tr>`).join('\n');
  return (
    `<table><thead><tr>${columns.map((column) => `<th>${column.head}</th>`).join('')}</tr></thead><tbody>` +
    `${body}</tbody></table>`
  );
}

/** The colour of a row: its strategy's, for the strategy's defaults and configurations; else its label's (an agent). */
function colorKey(row: StrategySummary): string {
  return row.label === row.strategyId || row.label.startsWith(`${row.strategyId} `) ? row.strategyId : row.label;
}

/** Whether a transcript's points hold several configurations of one strategy (a sweep). */
function isSweep(points: readonly FactsCostPoint[]): boolean {
  return points.some((point, index) => points.findIndex((other) => other.strategyId === point.strategyId) !== index);
}

/** Undoable epochs recorded, with their kinds: `12 (fold 9 · trim 3)`. */
function epochCell(row: StrategySummary): string {
  const kinds = Object.entries(row.control.epochsByKind).map(([kind, count]) => `${kind} ${formatNumber(count)}`);
  return (
    `${formatNumber(row.control.epochs)}` +
    `${kinds.length ? ` <small>(${escapeHtml(kinds.join(' · '))})</small>` : ''}`
  );
}

/** Accepted summaries' receipts: how many, how many were re-prompted, the items they kept and dropped. */
function receiptCell(row: StrategySummary): string {
  const { receipts, reprompted, itemsKept, itemsDropped } = row.control;
  if (receipts === 0) return '0';
  return (
    `${formatNumber(receipts)} <small>(${formatNumber(reprompted)} re-prompted; ${formatNumber(itemsKept)} ` +
    `items kept · ${formatNumber(itemsDropped)} dropped)</small>`
  );
}
