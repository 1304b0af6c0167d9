#!/usr/bin/env bash
# `npm ci [args...]`, with one fallback. The registry our machines reach has not
# always served native binaries for other platforms (it answered 404 for
# @swc/core-darwin-arm64, ...); a lockfile written while it did leaves them out,
# and npm ci then reports them "Missing: <name>@ from lock file" with an empty
# version. When those are its only complaints we install from the same lockfile
# with `npm install [args...]`; any real mismatch (a version, an Invalid line)
# still fails. Today the registry serves them and package-lock.json lists them,
# so npm ci passes as it is. Used by .ci/run and the Dockerfile.
set -euo pipefail

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if npm ci "$@" 2>&1 | tee "$log"; then
  exit 0
fi
if grep -q 'can only install packages when your package.json and package-lock.json' "$log" &&
  ! grep -E '^npm error (Missing|Invalid): ' "$log" | grep -qvE '^npm error Missing: (@[^@ /]+/)?[^@ /]+@ from lock file$'; then
  echo "npm ci refused only optional packages this registry does not serve; installing with npm install $*"
  exec npm install "$@"
fi
exit 1
