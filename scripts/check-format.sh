#!/usr/bin/env bash
# Fails when a file listed in scripts/format-checked.txt (or inside a listed folder) differs from
# what clang-format makes of it under .clang-format. Usage: scripts/check-format.sh [--fix]
# Exit codes: 0 all formatted, 1 some are not (they are named, with the fix command), 77 no
# clang-format (CTest reports the test as skipped).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
clang_format=${CLANG_FORMAT:-$(command -v clang-format || command -v clang-format-14 || true)}
if [ -z "$clang_format" ]; then
  echo "check-format: clang-format not found (scripts/install-deps.sh installs it); skipped"
  exit 77
fi
files=()
while IFS= read -r line; do
  line=${line%%#*}
  line=$(echo "$line" | xargs)
  [ -z "$line" ] && continue
  if [ -d "$line" ]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$line" -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' \) | sort)
  elif [ -f "$line" ]; then
    files+=("$line")
  else
    echo "check-format: scripts/format-checked.txt lists '$line', which does not exist"
    exit 1
  fi
done <scripts/format-checked.txt
if [ "${1:-}" = "--fix" ]; then
  "$clang_format" -i "${files[@]}"
  echo "check-format: formatted ${#files[@]} files"
  exit 0
fi
# One clang-format process for all files (starting one per file took 40 s); it names each file
# that differs in its "path:line:col: error:" lines.
report=$("$clang_format" --dry-run --Werror "${files[@]}" 2>&1 >/dev/null)
status=$?
bad=()
while IFS= read -r f; do [ -n "$f" ] && bad+=("$f"); done < <(
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$report" | sort -u)
if [ "$status" -ne 0 ] && [ "${#bad[@]}" -eq 0 ]; then
  echo "check-format: $clang_format failed:"
  echo "$report" | head -20
  exit 1
fi
if [ "${#bad[@]}" -gt 0 ]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} files are not formatted per .clang-format:"
  printf '  %s\n' "${bad[@]}"
  echo "fix: scripts/check-format.sh --fix (or clang-format -i FILE)"
  exit 1
fi
echo "check-format: ${#files[@]} files formatted per .clang-format"
