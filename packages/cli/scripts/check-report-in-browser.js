#!/usr/bin/env node
// Opens an HTML report from `ctxkit compare --report` in headless Chromium, checks that every chart
// rendered (the report sets data-charts-ready once Chart.js has drawn), and saves a screenshot.
//
//   node packages/cli/scripts/check-report-in-browser.js reports/ctxkit-report.html reports/ctxkit-report.png
//
// Needs Chromium (Debian: apt-get install chromium) and playwright-core (a devDependency of @ctxkit/cli).
// The browser runs with the network off: the report must need nothing but itself.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');

async function main() {
  const [input, output = (input || '').replace(/\.html?$/i, '') + '.png'] = process.argv.slice(2);
  if (!input || !fs.existsSync(input)) {
    console.error('usage: check-report-in-browser.js <report.html> [screenshot.png]');
    return 2;
  }
  const executablePath = process.env.CHROMIUM_PATH || ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => fs.existsSync(p));
  if (!executablePath) {
    console.error('No Chromium found: install it (apt-get install chromium) or set CHROMIUM_PATH.');
    return 2;
  }
  const browser = await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1400 }, offline: true });
    const page = await context.newPage();
    const failures = [];
    page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => failures.push(`request failed: ${request.url()}`));
    await page.goto('file://' + path.resolve(input));
    await page.waitForFunction(() => document.body.getAttribute('data-charts-ready') !== null, null, { timeout: 15000 });
    const charts = Number(await page.evaluate(() => document.body.getAttribute('data-charts-ready')));
    const canvases = await page.evaluate(() => document.querySelectorAll('canvas').length);
    const painted = await page.evaluate(() =>
      [...document.querySelectorAll('canvas')].every((canvas) => {
        const ctx = canvas.getContext('2d');
        const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
        for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) return true;
        return false;
      }),
    );
    await page.screenshot({ path: output, fullPage: false });
    if (failures.length || charts !== canvases || !painted || charts === 0) {
      console.error(`Report check failed: ${charts} charts for ${canvases} canvases, painted=${painted}; ${failures.join('; ')}`);
      return 1;
    }
    console.log(`ok: ${charts} charts rendered offline; screenshot ${output}`);
    return 0;
  } finally {
    await browser.close();
  }
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
