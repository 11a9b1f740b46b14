#!/bin/sh
# Install headless Chromium and its driver (the Debian packages `chromium` and
# `chromium-driver`) for the explorer's browser tests; Playwright drives this browser
# and downloads none of its own.
set -e
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
fi
echo "Chromium not found: installing it with the system package manager (browser tests)..."
if command -v apt-get >/dev/null 2>&1; then
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
elif command -v dnf >/dev/null 2>&1; then $SUDO dnf install -y chromium chromedriver
elif command -v pacman >/dev/null 2>&1; then $SUDO pacman -S --noconfirm chromium
elif command -v apk >/dev/null 2>&1; then $SUDO apk add chromium chromium-chromedriver
fi
if ! command -v chromium >/dev/null 2>&1; then
  echo "Could not install Chromium automatically. Install the 'chromium' package with your" >&2
  echo "system package manager (the explorer's browser tests need /usr/bin/chromium)," >&2
  echo "or run the tests with EVO_NO_BROWSER=1 to skip them." >&2
  exit 1
fi
echo "Chromium installed: $(chromium --version 2>/dev/null || echo /usr/bin/chromium)"
