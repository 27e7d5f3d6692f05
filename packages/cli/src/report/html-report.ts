import type { StrategySummary } from '../lab/strategy-summary';
import { chartLibrarySource } from './chart-library';
import { formatDollars, formatNumber, formatShare } from './format-number';
import { pinsKept } from './comparison-table';

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

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON safe to embed in a <script> element. */
function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * Renders the comparison as one self-contained HTML file: the Chart.js library and the data are
 * inlined, so the report opens in a browser with no network.
 */
export function renderHtmlReport(summaries: readonly StrategySummary[], context: ReportContext): string {
  const datasets = [...new Set(summaries.map((s) => s.dataset))];
  const labels = [...new Set(summaries.map((s) => s.label))];
  const data = {
    datasets: datasets.map((dataset) => ({
      dataset,
      rows: summaries.filter((s) => s.dataset === dataset),
    })),
    colors: Object.fromEntries(labels.map((label, index) => [label, COLORS[index % COLORS.length]])),
  };
  const sections = datasets
    .map((dataset, index) => {
      const rows = summaries.filter((s) => s.dataset === dataset);
      const first = rows[0]!;
      return `
<section>
  <h2>${escapeHtml(dataset)}</h2>
  <p class="muted">${formatNumber(first.conversations)} conversations, window ${formatNumber(first.window)} tokens; payload ceiling ${formatNumber(first.budget)} tokens (the window minus the output reservation; the standard strategies also keep a 10% safety margin free).</p>
  <div class="chart"><canvas id="tokens-${index}" role="img" aria-label="Tokens sent per model call, ${escapeHtml(dataset)}"></canvas></div>
  <div class="chart small"><canvas id="means-${index}" role="img" aria-label="Mean tokens per call, ${escapeHtml(dataset)}"></canvas></div>
  ${renderTable(rows)}${renderRejections(rows)}
</section>`;
    })
    .join('\n');
  const notes = labels
    .map((label) => `<li><strong>${escapeHtml(label)}</strong>: ${escapeHtml(context.strategyNotes[label] ?? '')}</li>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(context.title)}</title>
<style>
  body { font: 14px/1.45 system-ui, -apple-system, Segoe UI, Roboto, sans-serif; margin: 24px auto; max-width: 1200px; color: #111827; padding: 0 16px; }
  h1 { font-size: 22px; margin-bottom: 4px; }
  h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #e5e7eb; padding-bottom: 4px; }
  .muted { color: #6b7280; }
  .chart { position: relative; height: 340px; margin: 12px 0; }
  .chart.small { height: 220px; }
  table { border-collapse: collapse; width: 100%; font-size: 12.5px; margin-top: 8px; }
  th, td { border: 1px solid #e5e7eb; padding: 4px 6px; text-align: right; }
  td { white-space: nowrap; }
  th:first-child, td:first-child { text-align: left; }
  th { background: #f9fafb; }
  .bad { color: #b91c1c; font-weight: 600; }
  ul.notes li { margin: 4px 0; }
</style>
</head>
<body>
<h1>${escapeHtml(context.title)}</h1>
<p class="muted">Generated ${escapeHtml(context.generatedAt)}. Summaries and extraction: ${escapeHtml(context.llmDescription)}. Token counts: ${escapeHtml(
    context.counterDescription,
  )}.</p>
${sections}
<p class="muted">Cached prefix: the share of payload tokens, over the calls where the whole history no longer fits, that repeat the previous payload's start (tools, then whole messages), which a provider's prompt cache can serve. Input cost per conversation: the payloads' input tokens priced per million tokens from the price table named in each cell, with cache hits (the repeated prefix at the cached price, the rest at the input or cache-write price) and without; output tokens are not counted. Undoable epochs: the folds, extractions, compactions and trims the strategy recorded, each of which <code>session.undo(id)</code> can take back. Summary receipts: the model-written summaries accepted after their check, each once (a re-prompted one failed the check once); the offline summarizer writes none. Pins kept: the calls whose payload held every pin of the session verbatim, of the calls made with pins (<code>--pin-first-user</code> pins each conversation's first user message).</p>
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
  data.datasets.forEach(function (set, index) {
    var longest = 0;
    set.rows.forEach(function (row) { longest = Math.max(longest, row.perCallSeries.length, row.everythingSeries.length); });
    var labels = [];
    for (var i = 0; i < longest; i++) labels.push(String(i + 1));
    var lines = set.rows.map(function (row) {
      return { label: row.label, data: row.perCallSeries, borderColor: data.colors[row.label], backgroundColor: data.colors[row.label], pointRadius: 0, borderWidth: 2, tension: 0.15 };
    });
    if (set.rows.length) {
      lines.push({ label: 'send everything', data: set.rows[0].everythingSeries, borderColor: '#9ca3af', borderDash: [6, 4], pointRadius: 0, borderWidth: 1.5 });
      lines.push({ label: 'payload ceiling', data: labels.map(function () { return set.rows[0].budget; }), borderColor: '#ef4444', borderDash: [2, 3], pointRadius: 0, borderWidth: 1 });
    }
    window.ctxkitCharts.push(new Chart(document.getElementById('tokens-' + index), {
      type: 'line',
      data: { labels: labels, datasets: lines },
      options: { animation: false, maintainAspectRatio: false, interaction: { mode: 'index', intersect: false },
        plugins: { title: { display: true, text: 'Tokens sent per model call (mean over conversations)' } },
        scales: { x: { title: { display: true, text: 'model call within the conversation' } }, y: { beginAtZero: true, title: { display: true, text: 'tokens' } } } }
    }));
    window.ctxkitCharts.push(new Chart(document.getElementById('means-' + index), {
      type: 'bar',
      data: { labels: set.rows.map(function (row) { return row.label; }),
        datasets: [{ label: 'mean tokens per call', data: set.rows.map(function (row) { return Math.round(row.tokensPerCall.mean); }), backgroundColor: set.rows.map(function (row) { return data.colors[row.label]; }) }] },
      options: { animation: false, maintainAspectRatio: false, indexAxis: 'y', plugins: { legend: { display: false }, title: { display: true, text: 'Mean tokens per call' } } }
    }));
  });
  document.body.setAttribute('data-charts-ready', String(window.ctxkitCharts.length));
})();
</script>
</body>
</html>
`;
}

/** Why calls were rejected, per strategy: each code with its number of calls and its message's first line. */
function renderRejections(rows: readonly StrategySummary[]): string {
  const rejecting = rows.filter((row) => row.rejectedCalls > 0);
  if (rejecting.length === 0) return '';
  const items = rejecting
    .map((row) => {
      const reasons = row.rejections.map((reason) => `<li><code>${escapeHtml(reason.code)}</code> (${formatNumber(reason.calls)}): ${escapeHtml(reason.message)}</li>`).join('');
      return `<li><strong>${escapeHtml(row.label)}</strong>: ${formatNumber(row.rejectedCalls)} of ${formatNumber(row.calls)} calls rejected<ul>${reasons}</ul></li>`;
    })
    .join('\n');
  return `\n  <h3 class="bad">Rejected calls</h3>\n  <ul class="rejections">${items}</ul>`;
}

function renderTable(rows: readonly StrategySummary[]): string {
  const head = ['strategy', 'calls', 'tokens/call mean', 'p95', 'max', 'saved vs everything', 'dropped', 'summarized', 'trimmed', 'valid payloads', 'within budget', 'fact retention', 'cached prefix', 'input cost per conversation (with cache hits · without)', 'undoable epochs', 'summary receipts', 'pins kept (calls)', 'ms/call'];
  const body = rows
    .map((row) => {
      const sent = row.calls - row.rejectedCalls;
      const invalid = row.invalidPayloads > 0 ? ' class="bad"' : '';
      const over = row.overBudgetPayloads > 0 ? ' class="bad"' : '';
      return `<tr><td>${escapeHtml(row.label)}</td><td>${formatNumber(row.calls)}${row.rejectedCalls ? ` <span class="bad">(${row.rejectedCalls} rejected: ${escapeHtml(row.rejectedCodes.join(', '))})</span>` : ''}</td><td>${formatNumber(
        row.tokensPerCall.mean,
      )}</td><td>${formatNumber(row.tokensPerCall.p95)}</td><td>${formatNumber(row.tokensPerCall.max)}</td><td>${formatShare(row.savedShare)} (${formatNumber(
        row.tokensSaved,
      )})</td><td>${formatNumber(row.dropped)}</td><td>${formatNumber(row.summarized)}</td><td>${formatNumber(row.trimmed)}</td><td${invalid}>${
        sent - row.invalidPayloads
      }/${sent}</td><td${over}>${sent - row.overBudgetPayloads}/${sent}</td><td>${
        row.factRetention === null ? 'n/a' : `${formatShare(row.factRetention)} of ${formatNumber(row.factChecks)}`
      }</td><td>${formatShare(row.repeatedPrefixShare)}</td><td>${
        row.inputCostPerConversation
          ? `${formatDollars(row.inputCostPerConversation.withCache)} · ${formatDollars(row.inputCostPerConversation.withoutCache)} <small>(${escapeHtml(row.inputCostPerConversation.price)})</small>`
          : 'n/a'
      }</td><td>${epochCell(row)}</td><td>${receiptCell(row)}</td><td${row.control.pins && row.control.pins.kept < row.control.pins.calls ? ' class="bad"' : ''}>${pinsKept(row)}</td><td>${row.msPerCall.mean.toFixed(2)}</td></tr>`;
    })
    .join('\n');
  return `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table>`;
}

/** Undoable epochs recorded, with their kinds: `12 (fold 9 · trim 3)`. */
function epochCell(row: StrategySummary): string {
  const kinds = Object.entries(row.control.epochsByKind).map(([kind, count]) => `${kind} ${formatNumber(count)}`);
  return `${formatNumber(row.control.epochs)}${kinds.length ? ` <small>(${escapeHtml(kinds.join(' · '))})</small>` : ''}`;
}

/** Accepted summaries' receipts: how many, how many were re-prompted, the items they kept and dropped. */
function receiptCell(row: StrategySummary): string {
  const { receipts, reprompted, itemsKept, itemsDropped } = row.control;
  if (receipts === 0) return '0';
  return `${formatNumber(receipts)} <small>(${formatNumber(reprompted)} re-prompted; ${formatNumber(itemsKept)} items kept · ${formatNumber(itemsDropped)} dropped)</small>`;
}
