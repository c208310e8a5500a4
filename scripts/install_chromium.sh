#!/usr/bin/env bash
# Install headless Chromium (Debian's `chromium` package) for the replay viewer's browser
# test (env-server/tests/replay_viewer.rs). A no-op when /usr/bin/chromium exists.
# About a minute on a 2-core host with the apt lists present (measured: 53 s).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq chromium >/dev/null
/usr/bin/chromium --version
