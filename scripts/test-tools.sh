#!/usr/bin/env bash
# What the test suite needs from the system, installed with Debian's apt-get when missing, so a
# new machine needs nothing by hand: Chromium (the web app's browser tests), tmux (the terminal
# UI's pseudo-terminal tests), Postgres' server binaries (a throwaway cluster for the server's
# tests on Postgres) and bubblewrap (the shell's sandbox, whose tests run real commands in it).
# Run by `npm test` (its pretest).
set -euo pipefail
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v tmux >/dev/null || missing+=(tmux)
command -v bwrap >/dev/null || missing+=(bubblewrap)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "npm test: installing what the tests need: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
