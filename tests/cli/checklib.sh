# Shared by the CLI behaviour tests (cli_test.sh, serve_test.sh): runs gpuplan as a user scripts it
# and counts what held. The sourcing script sets `bin` (the gpuplan binary) first.
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME WANT_EXIT WANT_STDERR_SUBSTRING -- ARGS...
# Runs `$bin ARGS...` (stdout to $tmp/out, stderr to $tmp/err) and checks the exit status, that
# stderr holds the substring (when one is given) and that an error is one line.
expect() {
  local name=$1 want_rc=$2 want_err=$3
  shift 4
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne "$want_rc" ]; then
    echo "FAIL $name: exit $rc, wanted $want_rc; stderr: $(cat "$tmp/err")"
    failed=$((failed + 1))
    return
  fi
  if [ -n "$want_err" ] && ! grep -qF -- "$want_err" "$tmp/err"; then
    echo "FAIL $name: stderr lacks '$want_err': $(cat "$tmp/err")"
    failed=$((failed + 1))
    return
  fi
  if [ "$rc" -ne 0 ] && [ "$(wc -l <"$tmp/err")" -gt 2 ]; then
    echo "FAIL $name: error is not one line: $(cat "$tmp/err")"
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + 1))
}
