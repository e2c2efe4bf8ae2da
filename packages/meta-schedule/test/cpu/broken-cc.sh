#!/bin/sh
# A C compiler that fails on generated code (it force-includes a header that does not exist) but
# passes the runtime's OpenMP probe and --version through to cc: for the builder's error test.
for a in "$@"; do
  case "$a" in
    *tessera-cc-probe*|--version) exec cc "$@" ;;
  esac
done
exec cc -include tessera_no_such_header.h "$@"
