#!/usr/bin/env bash
# `pnpm install --frozen-lockfile`, failing when the install prints a warning: a fresh clone installs
# cleanly, and CI keeps it so. Fails on pnpm's WARN lines (deprecated or unsupported packages, peer
# dependencies, …), "Failed to create bin" (a bin whose file is missing before a build), "Ignored
# build scripts" (a dependency with an install script that pnpm-workspace.yaml neither allows nor
# ignores), an optional dependency whose build failed ("install: Failed") and the runtime's native
# addon not built. Prints the install's output as it goes; run from the repository root.
# Not counted: the build log pnpm echoes when isolated-vm compiles (Node 20, a store without its
# build): prebuild-install's "warn" when GitHub is out of reach, and g++'s warnings on its sources.
set -euo pipefail

log="$(mktemp "${TMPDIR:-/tmp}/tessera-install-XXXXXX")"
trap 'rm -f "$log"' EXIT

pnpm install --frozen-lockfile 2>&1 | tee "$log"

if found="$(grep -E 'WARN|Failed to create bin|Ignored build scripts|(pre|post)?install: Failed|native addon not built' "$log")"; then
  echo >&2
  echo "install-checked: the install printed warnings (a fresh install must print none):" >&2
  printf '%s\n' "$found" >&2
  exit 1
fi
echo "install-checked: no warnings"
