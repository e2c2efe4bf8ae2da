#!/usr/bin/env bash
# copy-lib-closure.sh BINARY LIBDIR: copies into LIBDIR the dynamic loader and every shared
# library BINARY needs, and every library those need, including the dependencies of libraries
# already in LIBDIR (say, a libjemalloc taken from a .deb, whose libstdc++ the bundling machine
# may not have installed). Libraries are resolved from LIBDIR first, then the system; repeated
# until nothing new is needed. Fails, naming it, when a library is found nowhere.
set -euo pipefail
binary="$1"
libdir="$2"
mkdir -p "$libdir"
loader=/lib64/ld-linux-x86-64.so.2
[ -e "$libdir/$(basename "$loader")" ] || cp -L "$loader" "$libdir/"

# Prints "NAME PATH" per dependency of $1 ("NAME not found" for a missing one), LIBDIR first.
deps() {
  LD_LIBRARY_PATH="$libdir" ldd "$1" 2>/dev/null | awk '
    /=> not found/ { print $1, "not found"; next }
    /=> \// { print $1, $3 }'
}

for round in $(seq 1 20); do
  copied=0
  for file in "$binary" "$libdir"/*.so*; do
    [ "$(basename "$file")" = "$(basename "$loader")" ] && continue
    while read -r name path; do
      [ -z "$name" ] && continue
      if [ "$path" = "not found" ]; then
        echo "copy-lib-closure: $(basename "$file") needs $name, which is neither in $libdir nor installed here" >&2
        exit 1
      fi
      if [ ! -e "$libdir/$name" ]; then
        cp -L "$path" "$libdir/$name"
        copied=1
      fi
    done < <(deps "$file")
  done
  [ "$copied" = 0 ] && exit 0
done
echo "copy-lib-closure: the closure of $binary did not settle after 20 rounds" >&2
exit 1
