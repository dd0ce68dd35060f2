#!/usr/bin/env bash
# .ci/browser.sh — make sure Debian's Chromium is installed for the
# examples/chatserver browser test (TestBrowserChat drives /usr/bin/chromium
# through chromedp). Idempotent: does nothing when the browser is there.
# Usable by contributors too: sudo bash .ci/browser.sh
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "chromium: already installed ($("$CHROMIUM" --version 2>/dev/null || echo "version unknown"))"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "chromium: not installed and not root (no sudo); install it with: apt-get install -y chromium" >&2
    exit 1
  fi
fi

echo "chromium: installing Debian's chromium package (this can take a few minutes)"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium >/dev/null

if [ ! -x "$CHROMIUM" ]; then
  echo "chromium: installation finished but $CHROMIUM is missing" >&2
  exit 1
fi
echo "chromium: installed ($("$CHROMIUM" --version 2>/dev/null || echo "version unknown"))"
