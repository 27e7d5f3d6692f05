#!/usr/bin/env node
// Opens an HTML report from `ctxkit compare --report` in headless Chromium, once per viewport width
// (1,280 px and a 390 px phone by default), and fails when
//   - the page scrolls sideways (document.scrollingElement.scrollWidth > innerWidth): a table must
//     scroll inside its own box, nothing may stick out of the page;
//   - the console logs an error, the page throws, or a request fails (the report needs nothing but itself);
//   - a chart is empty: a canvas without a chart, a chart without a drawn mark (a point, a bar or a
//     line point inside the plot area), or a canvas with no painted pixel.
// It saves a full-page screenshot per width: <out-dir>/report-1280.png, <out-dir>/report-390.png.
//
//   node packages/cli/scripts/check-report-in-browser.js reports/ctxkit-report.html [--out-dir reports] [--widths
//   1280,390]
//
// Needs Chromium (Debian: apt-get install chromium; or set CHROMIUM_PATH) and playwright-core (a
// devDependency of @ctxkit/cli). The browser runs with the network off.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');

function parseArgs(argv) {
  const args = { input: undefined, outDir: undefined, widths: [1280, 390] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out-dir') args.outDir = argv[++i];
    else if (argv[i] === '--widths') args.widths = String(argv[++i]).split(',').map(Number);
    else args.input = argv[i];
  }
  args.outDir = args.outDir ?? (args.input ? path.dirname(args.input) : undefined);
  return args;
}

/** Runs in the page: every chart and what it drew. */
function inspectCharts() {
  const canvases = [...document.querySelectorAll('canvas')];
  return canvases.map((canvas) => {
    const chart = window.Chart && window.Chart.getChart(canvas);
    let marks = 0;
    if (chart) {
      const area = chart.chartArea;
      chart.data.datasets.forEach((_, i) => {
        if (!chart.isDatasetVisible(i)) return;
        for (const element of chart.getDatasetMeta(i).data) {
          const { x, y } = element;
          if (
            Number.isFinite(x) &&
            Number.isFinite(y) &&
            x >= area.left - 1 &&
            x <= area.right + 1 &&
            y >= area.top - 1 &&
            y <= area.bottom + 1
          )
            marks += 1;
        }
      });
    }
    const ctx = canvas.getContext('2d');
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    let painted = false;
    for (let i = 3; i < data.length; i += 4) {
      if (data[i] !== 0) {
        painted = true;
        break;
      }
    }
    return {
      id: canvas.id,
      chart: Boolean(chart),
      marks,
      painted,
      width: canvas.clientWidth,
      height: canvas.clientHeight,
    };
  });
}

/** Runs in the page: the sideways overflow, and which elements stick out of the viewport. */
function inspectOverflow() {
  const scroller = document.scrollingElement;
  const culprits = [];
  if (scroller.scrollWidth > window.innerWidth) {
    for (const element of document.body.querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.right > window.innerWidth + 0.5 && !element.closest('.table-scroll *')) {
        const classes =
          typeof element.className === 'string' && element.className
            ? '.' + element.className.split(' ').join('.')
            : '';
        culprits.push(
          `${element.tagName.toLowerCase()}${element.id ? '#' + element.id : ''}` +
            `${classes} (right edge ${Math.round(box.right)})`,
        );
      }
      if (culprits.length >= 5) break;
    }
  }
  return { scrollWidth: scroller.scrollWidth, innerWidth: window.innerWidth, culprits };
}

async function checkWidth(browser, file, width, outDir) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, offline: true, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const failures = [];
  page.on('console', (message) => {
    if (message.type() === 'error') failures.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => failures.push(`request failed: ${request.url()}`));
  try {
    await page.goto('file://' + path.resolve(file));
    await page.waitForFunction(() => document.body.getAttribute('data-charts-ready') !== null, null, {
      timeout: 20000,
    });
    const charts = await page.evaluate(inspectCharts);
    const overflow = await page.evaluate(inspectOverflow);
    if (overflow.scrollWidth > overflow.innerWidth) {
      failures.push(
        `horizontal overflow: the page is ${overflow.scrollWidth} px wide in a ${overflow.innerWidth} px viewport ` +
          `(${overflow.culprits.join(', ') || 'no single element found'})`,
      );
    }
    if (charts.length === 0) failures.push('no chart in the report');
    for (const chart of charts) {
      if (!chart.chart) failures.push(`empty chart: canvas #${chart.id} holds no chart`);
      else if (chart.marks === 0) failures.push(`empty chart: #${chart.id} drew no mark inside its plot area`);
      else if (!chart.painted) failures.push(`empty chart: #${chart.id} painted nothing`);
      if (chart.width === 0 || chart.height === 0)
        failures.push(`empty chart: #${chart.id} is ${chart.width}×${chart.height} px`);
    }
    const shot = path.join(outDir, `report-${width}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    return { width, failures, charts: charts.length, marks: charts.reduce((sum, chart) => sum + chart.marks, 0), shot };
  } finally {
    await context.close();
  }
}

async function main() {
  const { input, outDir, widths } = parseArgs(process.argv.slice(2));
  if (!input || !fs.existsSync(input) || widths.some((width) => !Number.isInteger(width) || width <= 0)) {
    console.error('usage: check-report-in-browser.js <report.html> [--out-dir <dir>] [--widths 1280,390]');
    return 2;
  }
  const executablePath =
    process.env.CHROMIUM_PATH ||
    ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => fs.existsSync(p));
  if (!executablePath) {
    console.error('No Chromium found: install it (apt-get install chromium) or set CHROMIUM_PATH.');
    return 2;
  }
  fs.mkdirSync(outDir, { recursive: true });
  const browser = await chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  let failed = false;
  try {
    for (const width of widths) {
      const result = await checkWidth(browser, input, width, outDir);
      if (result.failures.length) {
        failed = true;
        console.error(`✗ ${width} px: ${result.failures.length} problem(s)`);
        for (const failure of result.failures) console.error(`    ${failure}`);
      } else {
        console.log(
          `✓ ${width} px: no horizontal overflow, no console error, ${result.charts} charts with ${result.marks} marks`,
        );
      }
      console.log(`    screenshot: ${result.shot}`);
    }
  } finally {
    await browser.close();
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
