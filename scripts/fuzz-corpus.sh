#!/usr/bin/env bash
# Assembles the seed corpus of every fuzz target (tests/fuzz) from the repository into
# OUT/seeds/<target>/: catalogs from data/, Hugging Face configs from tests/fixtures/hf, the
# validation CSVs, probe fixtures, the share links written in docs and tests, and the small
# hand-written seeds in tests/fuzz/seeds. Files are named by content hash, so reruns add nothing.
# Usage: scripts/fuzz-corpus.sh OUT (e.g. build/sanitize/fuzz)
set -euo pipefail
out=${1:?usage: fuzz-corpus.sh OUT}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
shopt -s nullglob

# add TARGET FILE...: copies each file into the target's seed folder under its hash.
add() {
  local target=$1 f
  shift
  mkdir -p "$out/seeds/$target"
  for f in "$@"; do
    [ -f "$f" ] || continue
    cp "$f" "$out/seeds/$target/$(sha1sum <"$f" | cut -c1-16)"
  done
}

rm -rf "$out/seeds"
json_targets=(hf_config model_json gpu_json instance_json provider_json pricing_rules_json assumptions_json
              probe_file published_json)
for t in "${json_targets[@]}"; do add "$t" tests/fuzz/seeds/json/*; done
add hf_config tests/fixtures/hf/*.json tests/fuzz/seeds/hf_config/*
add model_json data/models/*.json tests/fuzz/seeds/model_json/*
add gpu_json data/gpus/*.json
add instance_json data/instances/*.json
add provider_json data/providers/*.json
add pricing_rules_json data/pricing_rules.json
add assumptions_json data/assumptions.json
add measured_csv tests/validation/*.csv tests/fuzz/seeds/measured_csv/*
add probe_file tests/probe/fixtures/*.json data/benchmarks/*.json tests/fuzz/seeds/probe_file/*
add share_link tests/fuzz/seeds/share_link/*
add published_json data/published/*.json
add catalog_blob tests/fuzz/seeds/catalog_blob/*

# Share links as the docs and tests write them: "#model=...&..." up to a quote, bracket or space.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -rhoE '[#?]model=[^"`)'"'"' ]+' site/docs tests/browser tests/core README.md 2>/dev/null | sort -u |
  while IFS= read -r q; do
    printf '%s' "$q" >"$tmp/q"
    add share_link "$tmp/q"
  done

for d in "$out"/seeds/*/; do
  echo "fuzz-corpus: $(basename "$d"): $(ls "$d" | wc -l) seeds"
done
