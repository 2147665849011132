# Sourced by scripts/test.sh: named steps that print their duration, and lanes of steps that run
# at once (each line of a lane's output prefixed with its name; the first failure stops the rest).

steps_file=$(mktemp)          # "seconds<TAB>lane<TAB>step" per finished step, for the summary
lanes_dir=$(mktemp -d)        # <lane>.status once a lane has ended
LANE=main
step_name=""; step_started=$SECONDS

step_done() {
  [ -n "$step_name" ] || return 0
  local took=$((SECONDS - step_started))
  echo "=== done in $took s: $step_name"
  printf '%s\t%s\t%s\n' "$took" "$LANE" "$step_name" >> "$steps_file"
  step_name=""
}
step() { step_done; step_name="$*"; step_started=$SECONDS; echo; echo "=== $*"; }

step_summary() {
  echo; echo "=== step durations (s):"
  awk -F'\t' '{ printf "%6d  %-16s %s\n", $1, $2, $3 }' "$steps_file"
}

lane_groups=()               # process groups of running lanes (set -m gives each its own)
stop_lanes() { local g; for g in "${lane_groups[@]}"; do kill "-$1" -- "-$g" 2>/dev/null || true; done; }

on_exit() {
  local status=$?
  # Interrupted (Ctrl-C, or CI stopping the job): the lanes are in process groups of their own.
  [ "$LANE" = main ] && [ ${#lane_groups[@]} -gt 0 ] && stop_lanes TERM
  if [ $status -ne 0 ] && [ -n "$step_name" ]; then echo "=== FAILED after $((SECONDS - step_started)) s: $step_name"; fi
  [ "$LANE" = main ] && step_summary
  [ "$LANE" = main ] && rm -rf "$steps_file" "$lanes_dir" "${cleanup_dirs[@]}"
  return $status
}
cleanup_dirs=()
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Prefixes each line with "[lane] " as it comes (line-buffered).
prefix_lines() { sed -u "s/^/[$1] /"; }

# run_lanes NAME FUNCTION [NAME FUNCTION]...: runs each FUNCTION (a sequence of steps) in a lane of
# its own, all at once, in process groups of their own. Returns when all have passed; at the first
# failure it stops the other lanes (SIGTERM, then SIGKILL), names the failed lane and fails.
run_lanes() {
  step_done
  local -A groups=()
  local name fn
  set -m
  while [ $# -gt 0 ]; do
    name=$1; fn=$2; shift 2
    (
      LANE=$name
      trap 'status=$?; if [ $status -ne 0 ] && [ -n "$step_name" ]; then
              echo "=== FAILED after $((SECONDS - step_started)) s: $step_name"; echo "$step_name" > "$lanes_dir/$LANE.failed"; fi
            echo $status > "$lanes_dir/$LANE.status"' EXIT
      "$fn"
      step_done
    ) 2>&1 | prefix_lines "$name" &
    groups[$name]=$(jobs -p %%)
    lane_groups+=("${groups[$name]}")
  done
  set +m
  local failed="" done_count
  while :; do
    done_count=0
    for name in "${!groups[@]}"; do
      [ -f "$lanes_dir/$name.status" ] || continue
      done_count=$((done_count + 1))
      [ "$(cat "$lanes_dir/$name.status")" = 0 ] || { failed=$name; break; }
    done
    [ -z "$failed" ] && [ "$done_count" -lt "${#groups[@]}" ] || break
    sleep 1
  done
  if [ -n "$failed" ]; then
    for name in "${!groups[@]}"; do
      [ -f "$lanes_dir/$name.status" ] || { echo "=== stopping lane $name (lane $failed failed)"; kill -TERM -- "-${groups[$name]}" 2>/dev/null || true; }
    done
    sleep 5
    for name in "${!groups[@]}"; do kill -KILL -- "-${groups[$name]}" 2>/dev/null || true; done
    wait 2>/dev/null || true
    echo "=== FAILED in lane $failed: $(cat "$lanes_dir/$failed.failed" 2>/dev/null || echo '(a step of its own)') (its output: the lines starting [$failed])"
    return 1
  fi
  wait
  lane_groups=()
  # The lanes' steps were recorded by the lanes themselves (in $steps_file).
  echo; echo "all test steps passed in $SECONDS s"
}
