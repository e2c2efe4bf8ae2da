#!/usr/bin/env bash
# Precompiles the V8, Node and C++ library headers that isolated-vm's sources parse again in each of
# their 29 files, so that its compile from source during `pnpm install` on Node 20 (its prebuilt
# addons are on GitHub, out of CI's reach) parses them once (docs/benchmarks/ci-time.md, session 22).
# A precompiled header is a parse cache, not other code: g++ uses it only where it was made with the
# same compiler, flags and macros as the file being compiled, and otherwise reads the header itself.
#
#   bash .ci/isolated-vm-pch.sh header DIR       (from the repository root)
#   bash .ci/isolated-vm-pch.sh precompile DIR
#
# `header` writes DIR/iv-pch.h and prints the flag that makes g++ read it first
# (`-include DIR/iv-pch.h`, for the install's CXXFLAGS); the header includes anything only in
# isolated-vm's own compiles (where "isolated_vm.h" is on the include path). `precompile` (run
# beside the install, with the install's CXXFLAGS less that flag) finds isolated-vm's compile
# commands (the lockfile's release of isolated-vm 5, fetched with `npm pack` and checked against the
# lockfile's integrity, configured by the node-gyp that pnpm runs with npm's nodedir, its compiler
# replaced by a recorder) and precompiles the header for the target of 27 files (with RTTI) into
# DIR/iv-pch.h.gch/, each file moved there whole when done: a compile that starts before they are
# ready reads the header itself. Neither does anything where it cannot help (not Node 20, no g++);
# a failure in precompiling is logged to stderr, exits 0 and only costs the saving.
set -uo pipefail

mode="${1:-}"
dir="${2:-}"
if [ -z "$dir" ] || { [ "$mode" != header ] && [ "$mode" != precompile ]; }; then
  echo "usage: bash .ci/isolated-vm-pch.sh header|precompile DIR" >&2
  exit 2
fi

# isolated-vm 5 is compiled only on Node 20 (ABI 115); later Nodes take isolated-vm 6's prebuilt addon.
[ "$(node -p process.versions.modules 2>/dev/null)" = 115 ] || exit 0
command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || exit 0

mkdir -p "$dir/iv-pch.h.gch" || exit 0
dir="$(cd "$dir" && pwd)"

write_header() {
  cat >"$dir/iv-pch.h" <<'HEADER'
// Headers every isolated-vm source parses (.ci/isolated-vm-pch.sh); empty for any other compile.
#if __has_include("isolated_vm.h")
#include <v8.h>
#include <v8-platform.h>
#include <node.h>
#include <uv.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>
#endif
HEADER
  echo "-include $dir/iv-pch.h"
}

precompile() {
  local lock="pnpm-lock.yaml" version integrity gyp packed fetched nodedir
  version="$(sed -n 's/^  isolated-vm@\(5\.[0-9.]*\):$/\1/p' "$lock" | head -1)"
  integrity="$(awk -v key="  isolated-vm@$version:" '$0 == key { getline; print; exit }' "$lock" | sed -n 's/.*integrity: \([^,}]*\).*/\1/p')"
  if [ -z "$version" ] || [ -z "$integrity" ]; then echo "isolated-vm-pch: no isolated-vm 5 in $lock" >&2; return 1; fi
  gyp="$(dirname "$(readlink -f "$(command -v pnpm)")")/../dist/node_modules/node-gyp/bin/node-gyp.js"
  if [ ! -f "$gyp" ]; then echo "isolated-vm-pch: pnpm's node-gyp not found ($gyp)" >&2; return 1; fi
  [ -f "$dir/iv-pch.h" ] || write_header >/dev/null

  local work="$dir/work"
  rm -rf "$work" && mkdir -p "$work/package" "$work/commands" || return 1
  packed="$(cd "$work" && npm pack --json --silent --no-fund --no-audit "isolated-vm@$version")" || return 1
  fetched="$(printf '%s' "$packed" | node -e 'try { process.stdout.write(JSON.parse(require("fs").readFileSync(0, "utf8"))[0].integrity ?? "") } catch {}')"
  if [ -z "$fetched" ]; then
    echo "isolated-vm-pch: npm pack isolated-vm@$version named no integrity" >&2
    return 1
  fi
  if [ "$fetched" != "$integrity" ]; then
    echo "isolated-vm-pch: the fetched isolated-vm@$version ($fetched) does not match the lockfile's integrity ($integrity)" >&2
    return 1
  fi
  tar -xzf "$work"/isolated-vm-*.tgz -C "$work/package" --strip-components=1 || return 1

  # A compiler that records its arguments (NUL-separated, a file per call) and compiles nothing: it
  # leaves an empty output file, so that make goes on to the targets that depend on this one.
  cat >"$work/record-cxx" <<RECORDER
#!/usr/bin/env bash
printf '%s\0' "\$@" >"\$(mktemp "$work/commands/cxx-XXXXXX")"
while [ \$# -gt 0 ]; do
  if [ "\$1" = -o ] && [ \$# -gt 1 ]; then mkdir -p "\$(dirname "\$2")" && : >"\$2"; fi
  shift
done
exit 0
RECORDER
  chmod +x "$work/record-cxx"
  # pnpm hands npm's settings (its nodedir among them: where Node's headers are) to the build.
  nodedir="$(npm config get nodedir 2>/dev/null || true)"
  case "$nodedir" in undefined | null) nodedir="" ;; esac
  (
    cd "$work/package" &&
      node "$gyp" configure --release ${nodedir:+--nodedir="$nodedir"} >"$work/configure.log" 2>&1 &&
      CXX="$work/record-cxx" make -k -C build V=1 >"$work/make.log" 2>&1
    true
  )

  # One precompiled header per target of 8 objects or more (a target's objects share their flags;
  # making one costs 3 CPU s, about what it saves on 5 files, so the 2 objects without RTTI go
  # without): a recorded command without its source, output and dependency file, compiling the
  # header instead.
  local done_targets=" " file target k objects
  objects="$(cat "$work"/commands/cxx-* 2>/dev/null | tr '\0' '\n' | sed -n 's|.*obj\.target/\([^/]*\)/.*\.o$|\1|p')"
  for file in "$work"/commands/cxx-*; do
    [ -f "$file" ] || continue
    local -a args=() kept=()
    mapfile -d '' args <"$file"
    target=""
    k=0
    while [ "$k" -lt "${#args[@]}" ]; do
      case "${args[$k]}" in
        -o) target="${args[$((k + 1))]:-}"; k=$((k + 2)); continue ;;
        -MF) k=$((k + 2)); continue ;;
        -MMD | -c | *.cc) ;;
        *) kept+=("${args[$k]}") ;;
      esac
      k=$((k + 1))
    done
    target="$(printf '%s' "$target" | sed -n 's|.*obj\.target/\([^/]*\)/.*|\1|p')"
    if [ -z "$target" ] || [[ "$done_targets" == *" $target "* ]]; then continue; fi
    if [ "$(printf '%s\n' "$objects" | grep -cx "$target")" -lt 8 ]; then continue; fi
    done_targets+="$target "
    (
      cd "$work/package/build" &&
        g++ "${kept[@]}" -x c++-header "$dir/iv-pch.h" -o "$work/$target.gch" &&
        mv "$work/$target.gch" "$dir/iv-pch.h.gch/$target"
    ) &
  done
  wait
  if [ "$done_targets" = " " ]; then echo "isolated-vm-pch: no compile command recorded (see $work/make.log)" >&2; return 1; fi
  echo "isolated-vm-pch: precompiled for targets$done_targets(ready: $(ls "$dir/iv-pch.h.gch" | tr '\n' ' '))" >&2
}

if [ "$mode" = header ]; then
  write_header
else
  precompile || echo "isolated-vm-pch: not precompiled; isolated-vm compiles without it" >&2
fi
exit 0
