# Sourced by the script tests: expect_refusal SCRIPT ARGS checks that SCRIPT refuses ARGS
# (word-split) with exit code 2, one line on stderr and nothing on stdout. Needs $scratch
# and fail().
expect_refusal() {
  refused_script="$1"
  shift
  # shellcheck disable=SC2068
  "$refused_script" $@ > "$scratch/out" 2> "$scratch/err"
  code=$?
  [ "$code" -eq 2 ] || fail "$*: exit $code, not 2"
  [ "$(wc -l < "$scratch/err")" -eq 1 ] || fail "$*: not one line: $(cat "$scratch/err")"
  [ -s "$scratch/out" ] && fail "$*: wrote to stdout"
  return 0
}
