#!/usr/bin/env bash
# Runs the Gradescope autograder package the way Gradescope does, in a clean Debian root made
# with debootstrap (minbase): no Node, no curl, nothing but apt and the npm registry to install
# from. It builds the package (`tessera-grade package-gradescope`), unpacks it into
# /autograder/source, runs setup.sh there once, then run_autograder for two submissions, the
# starter files and the instructor solution, and checks each /autograder/results/results.json
# (starter: 0 points; solution: every point a machine without a GPU can award).
#
#   sudo bash apps/autograder/scripts/gradescope-debootstrap.sh      (or: pnpm test:gradescope, as root)
#
# Needs root (debootstrap, chroot, mount), debootstrap (apt-get install -y debootstrap), unzip, and
# the repository's node_modules on the host (to build the package and check the results).
# Environment:
#   TESSERA_GRADESCOPE_CACHE   where the pristine Debian root is kept and reused
#                              (default /var/cache/tessera-gradescope); every run works on a copy
#   TESSERA_DEBIAN_SUITE       default bookworm
#   TESSERA_DEBIAN_MIRROR      default http://deb.debian.org/debian
#   TESSERA_GRADESCOPE_KEEP=1  keep the run's root afterwards (its path is printed)
#   TESSERA_GRADESCOPE_CA_BUNDLE  extra certificates (PEM) the root trusts, for a machine whose
#                              HTTPS goes through an intercepting proxy (default $NODE_EXTRA_CA_CERTS
#                              when set): installed where ca-certificates picks them up, and given
#                              to Node as NODE_EXTRA_CA_CERTS. Gradescope itself needs none.
# Exit status 0 only when setup.sh and both gradings succeed with the expected scores.
set -euo pipefail

CACHE="${TESSERA_GRADESCOPE_CACHE:-/var/cache/tessera-gradescope}"
SUITE="${TESSERA_DEBIAN_SUITE:-bookworm}"
MIRROR="${TESSERA_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
KEEP="${TESSERA_GRADESCOPE_KEEP:-0}"
CA_BUNDLE="${TESSERA_GRADESCOPE_CA_BUNDLE-${NODE_EXTRA_CA_CERTS:-}}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
ASSIGNMENT="assignments/gemm-relu-add"
# The files a student hands in (the manifest's graded files), from the starter and the solution.
GRADED_FILES=(gemm_relu_add.ts trace_submission.ts)
PATH_IN_ROOT=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

die() {
  echo "gradescope-debootstrap: $1" >&2
  exit 1
}
step() {
  echo
  echo "=== $1 ($(date -u +%H:%M:%S))"
}

[ "$(id -u)" -eq 0 ] || die "run it as root: debootstrap, chroot and mount need root"
command -v debootstrap >/dev/null || die "debootstrap is missing (apt-get install -y debootstrap)"
command -v unzip >/dev/null || die "unzip is missing (apt-get install -y unzip)"
[ -x "$REPO/node_modules/.bin/tsx" ] || die "no node_modules in $REPO: run pnpm install first"
[ -z "$CA_BUNDLE" ] || [ -f "$CA_BUNDLE" ] || die "TESSERA_GRADESCOPE_CA_BUNDLE=$CA_BUNDLE is no file"

base="$CACHE/$SUITE-minbase"
root=""
mounts=()

cleanup() {
  local status=$? n
  # Unmount in reverse order; lazily, so a process still holding a mount cannot block it.
  for ((n = ${#mounts[@]} - 1; n >= 0; n--)); do
    umount -l "${mounts[n]}" 2>/dev/null || echo "gradescope-debootstrap: could not unmount ${mounts[n]}" >&2
  done
  if [ -n "$root" ] && [ -d "$root" ]; then
    if [ "$KEEP" = 1 ]; then
      echo "gradescope-debootstrap: kept the root at $root"
    elif ! grep -q " $root/" /proc/mounts; then
      rm -rf "$root"
    else
      echo "gradescope-debootstrap: $root still has mounts; not removing it" >&2
    fi
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$SECONDS
mkdir -p "$CACHE"

step "Debian $SUITE minbase root"
if [ -f "$base.complete" ]; then
  echo "reusing $base (made $(cat "$base.complete"))"
else
  rm -rf "$base" "$base.partial"
  t=$SECONDS
  debootstrap --variant=minbase "$SUITE" "$base.partial" "$MIRROR"
  mv "$base.partial" "$base"
  date -u +%Y-%m-%dT%H:%M:%SZ >"$base.complete"
  echo "debootstrap took $((SECONDS - t)) s"
fi

step "a fresh copy of the root"
root="$(mktemp -d "$CACHE/run.XXXXXX")"
cp -a "$base/." "$root/"
mount -t proc proc "$root/proc" && mounts+=("$root/proc")
mount --rbind /dev "$root/dev" && mounts+=("$root/dev")
mount --make-rslave "$root/dev"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
extra_env=()
if [ -n "$CA_BUNDLE" ]; then
  # update-ca-certificates (run when setup.sh installs ca-certificates) adds this folder's *.crt.
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp -L "$CA_BUNDLE" "$root/usr/local/share/ca-certificates/host-extra.crt"
  extra_env=(NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/host-extra.crt)
  echo "trusting the certificates of $CA_BUNDLE too"
fi
echo "$root"

# Runs $1 (a bash command line) inside the root as Gradescope would: root, a plain environment.
in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root PATH="$PATH_IN_ROOT" LANG=C.UTF-8 TERM=dumb "${extra_env[@]}" /bin/bash -c "$1"
}

step "the package"
work="$root/tmp/package"
mkdir -p "$work"
(cd "$REPO" && pnpm --silent grade package-gradescope --out "$work/autograder.zip")
mkdir -p "$root/autograder/source"
unzip -q "$work/autograder.zip" -d "$root/autograder/source"
# Gradescope copies run_autograder next to source/ and runs it from there.
cp "$root/autograder/source/run_autograder" "$root/autograder/run_autograder"
rm -rf "$work"

step "setup.sh"
t=$SECONDS
if ! in_root 'cd /autograder/source && bash ./setup.sh' 2>&1 | tee "$CACHE/setup.log"; then
  die "setup.sh failed after $((SECONDS - t)) s (log: $CACHE/setup.log)"
fi
setup_seconds=$((SECONDS - t))
echo "setup.sh took $setup_seconds s"

failures=0
summary=()
# Grades the graded files of host folder $2 as submission $1 and checks the results.
grade() {
  local name=$1 from=$2 f t
  step "run_autograder: the $name"
  rm -rf "$root/autograder/submission" "$root/autograder/results"
  mkdir -p "$root/autograder/submission" "$root/autograder/results"
  for f in "${GRADED_FILES[@]}"; do
    cp "$REPO/$from/$f" "$root/autograder/submission/$f"
  done
  t=$SECONDS
  # run_autograder exits 0 even when grading fails; the results say how it went.
  in_root 'cd /autograder && /autograder/run_autograder' 2>&1 | tee "$CACHE/run-$name.log" | tail -n 25 || true
  local seconds=$((SECONDS - t))
  cp "$root/autograder/results/results.json" "$CACHE/results-$name.json" 2>/dev/null || true
  if (cd "$REPO" && node_modules/.bin/tsx --conditions=@tessera/source apps/autograder/scripts/check-gradescope-results.ts "$root/autograder/results/results.json" "$name"); then
    summary+=("$name: OK in $seconds s")
  else
    summary+=("$name: FAILED in $seconds s (log: $CACHE/run-$name.log)")
    failures=$((failures + 1))
  fi
}
grade starter "$ASSIGNMENT"
grade solution "$ASSIGNMENT/solution"

step "summary"
echo "Debian $SUITE minbase, setup.sh $setup_seconds s"
printf '%s\n' "${summary[@]}"
echo "total $((SECONDS - started)) s; logs and results.json copies in $CACHE"
[ "$failures" -eq 0 ] || die "$failures grading(s) did not give the expected results"
echo "gradescope-debootstrap: PASS"
