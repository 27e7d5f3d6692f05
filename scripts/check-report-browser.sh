#!/usr/bin/env bash
# The comparison report in a real browser: builds it from the bundled conversations (offline models),
# opens it in headless Chromium at 1,280 px and at a 390 px phone width, and fails on horizontal
# overflow, a console error or an empty chart. Screenshots of both widths are left in the output
# directory (default reports/browser-check/, git-ignored): report-1280.png and report-390.png.
#
#   bash scripts/check-report-browser.sh [output directory]     (npm run report:screenshots builds first)
#
# Needs the build (npm run build) and Debian's chromium: when it is missing, it is installed with
# apt-get where that may run (root on Debian/Ubuntu, as in CI); elsewhere install it yourself or set
# CHROMIUM_PATH to a Chromium or Chrome binary.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-reports/browser-check}"

if [ -z "${CHROMIUM_PATH:-}" ] && ! command -v chromium >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "Installing chromium with apt-get…" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null
  else
    echo "No Chromium: install it (sudo apt-get install -y chromium) or set CHROMIUM_PATH." >&2
    exit 2
  fi
fi
export CHROMIUM_PATH="${CHROMIUM_PATH:-$(command -v chromium)}"

mkdir -p "$out"
node packages/cli/dist/bin/ctxkit.js compare --llm offline --no-progress --report "$out/ctxkit-report.html" >"$out/compare.txt"
node packages/cli/scripts/check-report-in-browser.js "$out/ctxkit-report.html" --out-dir "$out" --widths 1280,390
