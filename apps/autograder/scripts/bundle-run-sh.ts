/**
 * The device bundle's `run.sh <entry> [args...]` (written by bundle-gpu.ts): unpacks the bundled
 * Node binary once into TMPDIR and runs an entry with it.
 *
 * Several run.sh may start at once (one tuning run per GPU): each unpacks into its own temporary
 * file, and only the first copy is put in place — hard-linked, which fails when the name exists —
 * so a Node already running from it is never replaced under it. (Moving each copy over the name
 * left the first process running from a deleted file: `process.execPath` then names
 * "… (deleted)", and every child it started, a runner child for instance, failed with ENOENT.)
 */
export const RUN_SH = `#!/usr/bin/env bash
# Usage: run.sh <entry> [args...]   (entries: see manifest.json)
set -euo pipefail
here="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
entry="\${1:?usage: run.sh <entry> [args...]}"; shift
node="\${TESSERA_NODE:-}"
if [ -z "$node" ]; then
  if [ -f "$here/node.xz" ]; then
    node="\${TMPDIR:-/tmp}/tessera-node-$(cat "$here/node.version" 2>/dev/null || echo x)"
    if [ ! -x "$node" ]; then
      # The first copy in place stays: never replace a binary another run.sh may be running.
      unpacked="$node.tmp.$$"
      xz -dc "$here/node.xz" > "$unpacked" && chmod +x "$unpacked"
      ln "$unpacked" "$node" 2>/dev/null || mv -n "$unpacked" "$node" 2>/dev/null || true
      rm -f "$unpacked"
      if [ ! -x "$node" ]; then echo "run.sh: could not unpack node.xz into $node" >&2; exit 1; fi
    fi
  elif command -v node >/dev/null 2>&1; then
    node="$(command -v node)"
  else
    echo "run.sh: no node.xz in the bundle and no node on PATH" >&2; exit 127
  fi
fi
export UV_THREADPOOL_SIZE="\${UV_THREADPOOL_SIZE:-16}"
# The bundle carries the assignment (student files, solution, manifest); another can be named.
if [ -d "$here/assignment" ]; then export TESSERA_ASSIGNMENT_ROOT="\${TESSERA_ASSIGNMENT_ROOT:-$here/assignment}"; fi
exec "$node" "$here/$entry.mjs" "$@"
`;
