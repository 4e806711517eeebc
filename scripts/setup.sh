#!/usr/bin/env bash
# Installs the Debian packages cudalab needs (scripts/debian-packages.txt) when any is missing.
# Idempotent: with everything present it only checks and returns. Needs root or sudo to install.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The grader's packages too, where the grader is part of the checkout (not in the students' export).
lists=("$here/debian-packages.txt")
[ -f "$here/../grading/debian-packages.txt" ] && lists+=("$here/../grading/debian-packages.txt")
mapfile -t wanted < <(cat "${lists[@]}" | grep -v '^\s*#' | grep -v '^\s*$')
missing=()
for pkg in "${wanted[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "cudalab setup: installing ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null; then
  sudo=(sudo)
else
  echo "cudalab setup: missing Debian packages: ${missing[*]}" >&2
  echo "  install them as root: apt-get install ${missing[*]}" >&2
  exit 2
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
  "${sudo[@]}" apt-get update >&2
  "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2
fi
