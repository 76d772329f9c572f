#!/usr/bin/env bash
# Serves a built page on 127.0.0.1 and prints its URL. Usage: scripts/serve.sh DIR [PORT]
set -euo pipefail
dir=${1:?usage: serve.sh DIR [PORT]}
port=${2:-8000}
[ -f "$dir/index.html" ] || { echo "serve: $dir/index.html not found (run make wasm)" >&2; exit 1; }
echo "gpuplan calculator: http://127.0.0.1:$port/index.html  (Ctrl-C to stop)"
cd "$dir"
exec /usr/bin/python3 -m http.server "$port" --bind 127.0.0.1
