#!/bin/sh
# Install Graphviz (the `dot` program) with whatever system package manager is present.
set -e
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
fi
echo "Graphviz 'dot' not found: installing it with the system package manager..."
if command -v apt-get >/dev/null 2>&1; then
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq graphviz >/dev/null
elif command -v dnf >/dev/null 2>&1; then $SUDO dnf install -y graphviz
elif command -v yum >/dev/null 2>&1; then $SUDO yum install -y graphviz
elif command -v pacman >/dev/null 2>&1; then $SUDO pacman -S --noconfirm graphviz
elif command -v apk >/dev/null 2>&1; then $SUDO apk add graphviz
elif command -v brew >/dev/null 2>&1; then brew install graphviz
elif command -v zypper >/dev/null 2>&1; then $SUDO zypper install -y graphviz
fi
if ! command -v dot >/dev/null 2>&1; then
  echo "Could not install Graphviz automatically. Install the 'graphviz' package with your" >&2
  echo "system package manager (it provides the 'dot' program), then run make again." >&2
  exit 1
fi
echo "Graphviz installed: $(dot -V 2>&1)"
