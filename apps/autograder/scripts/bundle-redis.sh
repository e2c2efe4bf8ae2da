#!/usr/bin/env bash
# `pnpm bundle:redis [OUT]`: Debian bookworm's redis-server with its own dynamic loader and
# libraries, packed as OUT/redis.tar.xz (default .device-bundle/) with an unpacking launcher
# OUT/redis-server.sh. The GPU machines have no Redis and no network; with the loader and libc
# carried along the binary runs whatever glibc the host has. Needs apt-get (Debian) and xz.
set -euo pipefail

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
ldd "$dist/redis-server" | awk '/=> \//{print $3}' | while read -r lib; do
  base="$(basename "$lib")"
  [ -e "$dist/lib/$base" ] || cp -L "$lib" "$dist/lib/"
done
cp -L /lib64/ld-linux-x86-64.so.2 "$dist/lib/"
"$dist/lib/ld-linux-x86-64.so.2" --library-path "$dist/lib" "$dist/redis-server" --version >/dev/null \
  || { echo "bundle-redis: the packed redis-server does not start here" >&2; exit 1; }

tar -C "$work" -cJf "$out/redis.tar.xz" redis
cat >"$out/redis-server.sh" <<'EOF'
#!/bin/sh
# Unpacks redis.tar.xz beside this script once, then runs Debian's redis-server with its own
# loader and libraries (so the host's glibc does not matter). Arguments go to redis-server.
here="$(cd "$(dirname "$0")" && pwd)"
dir="${TESSERA_REDIS_DIR:-/tmp/tessera-redis}"
if [ ! -x "$dir/redis/redis-server" ]; then
  mkdir -p "$dir" && tar -C "$dir" -xJf "$here/redis.tar.xz" || { echo "redis-server.sh: cannot unpack $here/redis.tar.xz into $dir" >&2; exit 1; }
fi
exec "$dir/redis/lib/ld-linux-x86-64.so.2" --library-path "$dir/redis/lib" --argv0 redis-server "$dir/redis/redis-server" "$@"
EOF
chmod +x "$out/redis-server.sh"
echo "bundle-redis: $(du -h "$out/redis.tar.xz" | cut -f1) in $out/redis.tar.xz; start it with $out/redis-server.sh"
