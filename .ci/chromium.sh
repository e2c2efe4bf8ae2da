#!/usr/bin/env bash
# Installs Debian's chromium, pinned, for the schedule explorer's browser tests (`pnpm test:browser`,
# which drives /usr/bin/chromium through playwright-core: browser downloads are out of reach here).
# .ci/run starts it in the background early, so that it overlaps the other steps, and waits for it
# before the browser tests. Exit 0 when chromium is there; anything else means it could not be installed.
set -uo pipefail

CHROMIUM_VERSION="156.0.8078.108-1~deb12u1"

if command -v chromium >/dev/null 2>&1; then
  echo "chromium: $(chromium --version 2>/dev/null || echo installed)"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
# Other steps may hold apt's lock for a while (redis-server, xz): wait for it rather than fail.
apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y -qq)
$SUDO "${apt[@]}" update || exit 1
if ! $SUDO "${apt[@]}" install --no-install-recommends "chromium=${CHROMIUM_VERSION}"; then
  echo "WARNING: chromium ${CHROMIUM_VERSION} is no longer available; installing the current candidate $(apt-cache policy chromium | awk '/Candidate/ {print $2}')" >&2
  $SUDO "${apt[@]}" install --no-install-recommends chromium || exit 1
fi
echo "chromium: $(chromium --version 2>/dev/null || echo installed)"
