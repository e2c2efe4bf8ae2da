#!/usr/bin/env bash
# Installs the Debian packages the test steps need, pinned, where they are missing: redis-server (the
# job-queue tests start their own instance on loopback) and xz (the device bundle's run.sh unpacks
# Node with it; its test needs it). .ci/run starts it in the background at once, before chromium's
# install (.ci/chromium.sh), and waits for it before the first test step: its downloads then overlap
# the workspace's install. Exit 0 when both are there.
set -euo pipefail

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

echo "== redis-server (for the job-queue tests)"
# Debian bookworm's redis-server, pinned; the tests start their own instance on loopback, so the
# system service is never started (policy-rc.d forbids it during the install).
REDIS_VERSION="5:7.0.15-1~deb12u10"
if ! command -v redis-server >/dev/null 2>&1; then
  made_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod +x /usr/sbin/policy-rc.d
    made_policy=1
  fi
  $SUDO apt-get update -qq
  if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "redis-server=${REDIS_VERSION}" "redis-tools=${REDIS_VERSION}"; then
    echo "WARNING: redis-server ${REDIS_VERSION} is no longer available; installing the current candidate $(apt-cache policy redis-server | awk '/Candidate/ {print $2}')" >&2
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server
  fi
  if [ -n "$made_policy" ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi
fi
echo "$(redis-server --version)"

echo "== xz (the device bundle's run.sh unpacks Node with it; its test needs it)"
XZ_VERSION="5.4.1-1"
if ! command -v xz >/dev/null 2>&1; then
  $SUDO apt-get update -qq
  if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "xz-utils=${XZ_VERSION}"; then
    echo "WARNING: xz-utils ${XZ_VERSION} is no longer available; installing the current candidate" >&2
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends xz-utils
  fi
fi
echo "$(xz --version | head -1)"
