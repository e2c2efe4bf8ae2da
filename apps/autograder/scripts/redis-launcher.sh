#!/bin/sh
# redis-server.sh of the device bundle (written by `pnpm bundle:redis`): unpacks redis.tar.xz
# beside this script into a folder named after the tarball's hash, then runs Debian's
# redis-server with its own loader and libraries (so the host's glibc does not matter).
# Arguments go to redis-server. A changed tarball unpacks into a new folder: a stale copy is
# never run. Unpacked into a temporary folder and renamed, so two starts at once are safe.
set -e
here="$(cd "$(dirname "$0")" && pwd)"
tarball="$here/redis.tar.xz"
[ -r "$tarball" ] || { echo "redis-server.sh: $tarball is missing" >&2; exit 1; }
hash="$(sha256sum "$tarball" | cut -c1-16)"
base="${TESSERA_REDIS_DIR:-/tmp/tessera-redis}"
dir="$base/$hash"
if [ ! -x "$dir/redis/redis-server" ]; then
  mkdir -p "$base"
  partial="$(mktemp -d "$base/.unpack-XXXXXX")"
  tar -C "$partial" -xJf "$tarball" || { rm -rf "$partial"; echo "redis-server.sh: cannot unpack $tarball into $partial" >&2; exit 1; }
  # Another start may have won the race: its copy is as good.
  mv -T "$partial" "$dir" 2>/dev/null || rm -rf "$partial"
fi
exec "$dir/redis/lib/ld-linux-x86-64.so.2" --library-path "$dir/redis/lib" --argv0 redis-server "$dir/redis/redis-server" "$@"
