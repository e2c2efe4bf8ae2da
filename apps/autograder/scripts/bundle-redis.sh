#!/usr/bin/env bash
# `pnpm bundle:redis [OUT]`: Debian bookworm's redis-server with its own dynamic loader and
# libraries, packed as OUT/redis.tar.xz (default .device-bundle/) with an unpacking launcher
# OUT/redis-server.sh. The GPU machines have no Redis and no network; with the loader and libc
# carried along the binary runs whatever glibc the host has. Needs apt-get (Debian) and xz.
set -euo pipefail

scripts="$(cd "$(dirname "$0")" && pwd)"
out="${1:-.device-bundle}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

command -v apt-get >/dev/null || { echo "bundle-redis: apt-get not found (a Debian machine is needed)" >&2; exit 1; }
cd "$work"
# apt-get download writes as the _apt user where it can; a private directory it cannot enter is fine.
apt-get download redis-tools liblzf1 libjemalloc2 2> >(grep -v "^W: Download is performed unsandboxed" >&2) >/dev/null \
  || { echo "bundle-redis: apt-get download failed (run apt-get update first?)" >&2; exit 1; }
for deb in ./*.deb; do dpkg -x "$deb" root; done

dist="$work/redis"
mkdir -p "$dist/lib"
# Debian's redis-server is redis-check-rdb under another name: the binary picks its role by argv[0].
cp root/usr/bin/redis-check-rdb "$dist/redis-server"
cp -L root/usr/lib/x86_64-linux-gnu/liblzf.so.1 root/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 "$dist/lib/"
# The whole closure, the copied libraries' own dependencies included (jemalloc needs libstdc++).
bash "$scripts/copy-lib-closure.sh" "$dist/redis-server" "$dist/lib"
# Started with no library path of the host's: what it needs must all be in the bundle.
env -i "$dist/lib/ld-linux-x86-64.so.2" --library-path "$dist/lib" "$dist/redis-server" --version >/dev/null \
  || { echo "bundle-redis: the packed redis-server does not start here" >&2; exit 1; }
tar -C "$work" -cJf "$out/redis.tar.xz" redis
cp "$scripts/redis-launcher.sh" "$out/redis-server.sh"
chmod +x "$out/redis-server.sh"
echo "bundle-redis: $(du -h "$out/redis.tar.xz" | cut -f1) in $out/redis.tar.xz; start it with $out/redis-server.sh"
