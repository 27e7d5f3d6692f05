#!/usr/bin/env bash
# Installs ctxkit the way a user gets it and uses it there: every public workspace package packed
# with `npm pack`, installed from those tarballs in a new project outside this repository; a
# strategy scaffolded there with the installed `ctxkit new-strategy --from-tarballs`, installed,
# built and tested with its generated tests; then a payload composed through the installed runtime
# (createContextRuntime -> loadAgent -> forSession -> composePayload) with an installed standard
# plugin and the scaffolded one. Any failing step stops the check with its log and exit 1.
#
# Third-party dependencies come from the npm registry (or npm's cache). Set CTXKIT_KEEP_PACKED=1 to
# keep the work directory after a success (it is always kept after a failure).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
helpers="$repo/scripts/packed-install"
work="$(mktemp -d "${TMPDIR:-/tmp}/ctxkit-packed-install.XXXXXX")"
tarballs="$work/tarballs"
project="$work/project"
strategy="$project/pinned-note"
logs="$work/logs"
mkdir -p "$tarballs" "$project" "$logs"
npm_flags=(--no-audit --no-fund --prefer-offline --loglevel=error)
started=$SECONDS
step_number=0

# step <description> <command...>: runs the command with its output in a log; on failure prints the
# end of the log and stops. (A function run this way does not stop at a failing line by itself:
# each one below returns at its first failure.)
step() {
  local description="$1"
  shift
  step_number=$((step_number + 1))
  local log
  log="$logs/$(printf '%02d' "$step_number")-$(tr 'A-Z' 'a-z' <<<"$description" | tr -c 'a-z0-9' '-' | sed 's/-*$//').log"
  local step_started=$SECONDS
  local status=0
  "$@" >"$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    echo "✗ $description: FAILED (exit $status after $((SECONDS - step_started)) s). End of $log:" >&2
    tail -n 60 "$log" | sed 's/^/    /' >&2
    echo "check-packed-install: FAILED at step $step_number ($description). Work directory kept: $work" >&2
    exit 1
  fi
  echo "✓ $description ($((SECONDS - step_started)) s)"
}

packages=()
locations=()
list_packages() {
  local name location
  while read -r name location; do
    packages+=("$name")
    locations+=("$location")
  done < <(cd "$repo" && node "$helpers/public-workspaces.mjs")
  printf '%s\n' "${packages[@]}"
}

build() { (cd "$repo" && npx tsc -b "${locations[@]}"); }

pack() {
  local workspace_flags=()
  for name in "${packages[@]}"; do workspace_flags+=(-w "$name"); done
  (cd "$repo" && npm pack --json --loglevel=error --pack-destination "$tarballs" "${workspace_flags[@]}") >"$work/pack.json" || return
  node "$helpers/check-pack-contents.mjs" "$work/pack.json" "$repo" || return
  local packed
  packed=$(find "$tarballs" -name '*.tgz' | wc -l)
  if [ "$packed" -ne "${#packages[@]}" ]; then
    echo "Packed $packed tarballs for ${#packages[@]} public packages (${packages[*]})." >&2
    return 1
  fi
}

install_tarballs() {
  printf '{ "name": "ctxkit-packed-install-check", "version": "1.0.0", "private": true }\n' >"$project/package.json" || return
  (cd "$project" && npm install "${npm_flags[@]}" "$tarballs"/*.tgz)
}

scaffold() {
  (cd "$project" && npx --no ctxkit new-strategy pinned-note --from-tarballs "$tarballs") | tee "$work/new-strategy.out" || return
  grep -q '"@ctxkit/core": "file:' "$strategy/package.json" || { echo "The scaffold does not depend on the core tarball: $(cat "$strategy/package.json")" >&2; return 1; }
  grep -qx '  npm install' "$work/new-strategy.out" || { echo 'new-strategy --from-tarballs did not print "npm install" as a next step.' >&2; return 1; }
}

install_strategy() { (cd "$strategy" && npm install "${npm_flags[@]}"); }
build_strategy() { (cd "$strategy" && npm run build); }

test_strategy() {
  (cd "$strategy" && npm test) 2>&1 | tee "$work/strategy-tests.out"
  local status=${PIPESTATUS[0]}
  [ "$status" -eq 0 ] || return "$status"
  grep -Eq 'Tests: +[0-9]+ passed, [0-9]+ total' "$work/strategy-tests.out" || { echo 'The generated tests did not report passing tests.' >&2; return 1; }
}

compose() {
  cp "$helpers/compose-payload.cjs" "$project/compose-payload.cjs" || return
  (cd "$project" && node compose-payload.cjs "$strategy" pinned-note-strategy)
}

echo "check-packed-install: working in $work"
list_packages >"$logs/00-public-packages.log"
if [ "${#packages[@]}" -eq 0 ]; then
  echo "check-packed-install: FAILED: no public package found (npm query .workspace in $repo). Work directory kept: $work" >&2
  exit 1
fi
step "Build the ${#packages[@]} public packages" build
step 'Pack the public packages' pack
step 'Install the tarballs in a project outside the repository' install_tarballs
step 'Scaffold a strategy with the installed ctxkit new-strategy --from-tarballs' scaffold
step "Install the scaffolded strategy's dependencies" install_strategy
step 'Build the scaffolded strategy' build_strategy
step "Run the scaffolded strategy's generated tests" test_strategy
step 'Compose payloads through the installed runtime (a standard plugin and the scaffolded one)' compose
sed 's/^/    /' "$logs/$(printf '%02d' "$step_number")"-*.log

checked=$((SECONDS - started))
if [ -z "${CTXKIT_KEEP_PACKED:-}" ]; then rm -rf "$work"; else echo "Work directory kept: $work"; fi
elapsed=$((SECONDS - started))
echo "check-packed-install: passed: ${#packages[@]} packages checked in ${checked} s, ${elapsed} s with the clean-up."
if [ "$elapsed" -gt 180 ]; then echo "check-packed-install: warning: it took more than 3 minutes (${elapsed} s)." >&2; fi
