# Shared helpers for the record-*.sh scripts (sourced, not run).
#
# One recording = the SAME run captured two ways at once:
#   - tracefs events (ring buffer in /sys/kernel/tracing), later saved with
#     `trace-cmd extract` (trace.dat v7+zstd) and `cat trace` (ftrace text);
#   - `perf record -a` on the same tracepoints (perf.data).
# `trace-cmd record` cannot enable ftrace on this machine, hence tracefs by hand.
#
# Window order: perf starts (and settles) -> tracing_on 1 -> workload -> tracing_on 0 -> perf
# stops (SIGINT). So the perf window contains the tracefs window: per event, perf.data count
# >= trace.dat count (unless perf lost events), and events that only happen inside the
# workload (quiet before and after) are equal. Starting tracefs first would add perf's own
# start-up and build-id pass (thousands of events) to trace.dat.
# The containment is in real time, not always in the printed timestamps: on the VM of
# 2026-12-03 tracefs's `local` clock read 27.1 ms ahead of perf's sample times (measured on
# 4087 events seen once on each side, testdata/lttng/recorded/README.md), so compare windows
# by events, never by timestamps across the two files.
#
# tracefs is global: callers hold `flock /tmp/tk-tracefs.lock` around a whole session, and
# tk_tracefs_restore runs from an EXIT trap even on failure.

TRACEFS=${TRACEFS:-/sys/kernel/tracing}
TK_SKIP=77

tk_skip() { echo "SKIP: $*" >&2; exit "$TK_SKIP"; }
tk_die() { echo "ERROR: $*" >&2; exit 1; }

# Skips (exit 77) unless we can record: root, perf, trace-cmd, tracefs.
tk_require_recording() {
  [ "$(id -u)" = 0 ] || tk_skip "needs root (perf -a, tracefs, loop devices)"
  command -v perf >/dev/null || tk_skip "perf not installed"
  command -v trace-cmd >/dev/null || tk_skip "trace-cmd not installed"
  [ -w "$TRACEFS/tracing_on" ] || tk_skip "tracefs not writable at $TRACEFS"
  [ -w "$TRACEFS/events/enable" ] || tk_skip "tracefs events not writable"
  perf record -h 2>&1 | grep -q -- '--control' ||
    tk_skip "perf too old: perf record has no --control (needed to start in sync with tracefs)"
}

# Re-runs the calling script under `flock /tmp/tk-tracefs.lock` (once).
tk_take_lock() {
  if [ -z "${TK_TRACEFS_LOCKED:-}" ]; then
    command -v flock >/dev/null || tk_skip "flock not installed"
    TK_TRACEFS_LOCKED=1 exec flock /tmp/tk-tracefs.lock "$0" "$@"
  fi
}

# The prologue of a record-NAME.sh: the usage check, the recording tools, the tracefs lock,
# OUTDIR made absolute as $out and an empty staging directory $stage in tmpfs. Clean-up runs
# now (leftovers of an interrupted run) and on every exit: the caller's tk_cleanup_extra when
# it defines one (before calling this), then perf stopped, tracefs restored, $stage removed.
# Usage: tk_begin NAME "$@"
tk_begin() {
  local name=$1
  shift
  [ $# = 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
  tk_require_recording
  tk_take_lock "$@"
  out=$(mkdir -p "$1" && cd "$1" && pwd) || tk_die "cannot create $1"
  stage=/dev/shm/tk-rec-$name
  trap tk_cleanup EXIT
  trap 'exit 1' INT TERM
  tk_cleanup
  mkdir -p "$stage"
}

tk_cleanup() {
  if declare -F tk_cleanup_extra >/dev/null; then tk_cleanup_extra; fi
  tk_perf_abort
  tk_tracefs_restore
  rm -rf "$stage"
}

TK_SAVED_BUFSIZE=""
TK_SAVED_TGID=""
TK_SAVED_IRQINFO=""

# Clean state: nothing enabled, empty buffer, tracing off until tk_tracefs_start.
# Args: buffer size in KB per CPU, then event paths relative to events/ ("sched/sched_switch").
tk_tracefs_setup() {
  local kb=$1; shift
  # "7 (expanded: 1408)" = not allocated yet; once expanded it cannot shrink back to 7.
  TK_SAVED_BUFSIZE=$(sed -E 's/.*expanded: ([0-9]+).*/\1/; s/ .*//' "$TRACEFS/buffer_size_kb")
  TK_SAVED_TGID=$(cat "$TRACEFS/options/record-tgid")
  TK_SAVED_IRQINFO=$(cat "$TRACEFS/options/irq-info")
  echo 0 > "$TRACEFS/tracing_on"
  echo 0 > "$TRACEFS/events/enable"
  echo > "$TRACEFS/trace"
  echo nop > "$TRACEFS/current_tracer"
  echo "$kb" > "$TRACEFS/buffer_size_kb"
  echo 1 > "$TRACEFS/options/record-tgid"
  local ev
  for ev in "$@"; do
    echo 1 > "$TRACEFS/events/$ev/enable" || tk_die "cannot enable $ev"
  done
}

tk_tracefs_start() { echo 1 > "$TRACEFS/tracing_on"; }
tk_tracefs_stop() { echo 0 > "$TRACEFS/tracing_on"; }

# Always safe to call (trap): events off, buffer cleared, tracing_on 1, sizes/options back.
tk_tracefs_restore() {
  echo 0 > "$TRACEFS/events/enable" 2>/dev/null
  local f
  for f in "$TRACEFS"/events/block/*/filter "$TRACEFS"/events/sched/*/filter; do
    [ "$(cat "$f" 2>/dev/null)" = none ] || echo 0 > "$f" 2>/dev/null
  done
  echo > "$TRACEFS/trace" 2>/dev/null
  if [ -n "$TK_SAVED_BUFSIZE" ]; then
    echo "$TK_SAVED_BUFSIZE" > "$TRACEFS/buffer_size_kb" 2>/dev/null
  fi
  [ -n "$TK_SAVED_TGID" ] && echo "$TK_SAVED_TGID" > "$TRACEFS/options/record-tgid" 2>/dev/null
  [ -n "$TK_SAVED_IRQINFO" ] && echo "$TK_SAVED_IRQINFO" > "$TRACEFS/options/irq-info" 2>/dev/null
  echo 1 > "$TRACEFS/tracing_on" 2>/dev/null
  return 0
}

# Saves the tracefs text views of the (stopped) buffer, then the binary forms.
# Arg: output prefix (OUTDIR/name). Reading `trace` does not consume; extract does.
tk_tracefs_save() {
  local p=$1
  echo 0 > "$TRACEFS/options/record-tgid"
  echo 1 > "$TRACEFS/options/irq-info"
  cat "$TRACEFS/trace" > "$p.ftrace.txt"
  echo 0 > "$TRACEFS/options/irq-info"
  cat "$TRACEFS/trace" > "$p.ftrace-noirq.txt"
  echo 1 > "$TRACEFS/options/irq-info"
  echo 1 > "$TRACEFS/options/record-tgid"
  cat "$TRACEFS/trace" > "$p.ftrace-tgid.txt"
  rm -f "$p.trace.dat" "$p.v6.trace.dat"
  # trace-cmd extract stores all of /proc/kallsyms (5+ MB) and the formats of all ~100 event
  # systems (2 MB), uncompressed in v6. `trace-cmd record -e` would store only the recorded
  # systems; extract has no such option. So, in a private mount namespace, show it a kallsyms
  # subset (block/sched/ext4/jbd2 text symbols) and an events/ directory holding only
  # header_page, header_event, ftrace/ and the systems in $TK_SAVE_SYSTEMS (copied formats).
  local view=/dev/shm/tk-tracefs-view.$$ sys ev
  rm -rf "$view"; mkdir -p "$view/events"
  grep -E ' [tT] (_text|_stext|_etext|blk_[a-z_]*|submit_bio[a-z_]*|__schedule|schedule|ext4_[a-z_]*|jbd2_[a-z_]*|loop_[a-z_]*)$' \
    /proc/kallsyms > "$view/kallsyms"
  cat "$TRACEFS/events/header_page" > "$view/events/header_page"
  cat "$TRACEFS/events/header_event" > "$view/events/header_event"
  for sys in ftrace ${TK_SAVE_SYSTEMS:-}; do
    for ev in "$TRACEFS/events/$sys"/*/; do
      [ -r "$ev/format" ] || continue
      mkdir -p "$view/events/$sys/$(basename "$ev")"
      cat "$ev/format" > "$view/events/$sys/$(basename "$ev")/format"
      [ -r "$ev/id" ] && cat "$ev/id" > "$view/events/$sys/$(basename "$ev")/id"
      [ -r "$ev/enable" ] && cat "$ev/enable" > "$view/events/$sys/$(basename "$ev")/enable"
    done
  done
  # If the reduced view cannot be set up (no unshare/bind mounts), extract everything: the
  # files get bigger but stay correct. (The view only fails before extract reads anything.)
  if ! { [ -n "${TK_SAVE_SYSTEMS:-}" ] && command -v unshare >/dev/null &&
         unshare -m sh -c 'mount --bind "$1/kallsyms" /proc/kallsyms &&
                           mount --bind "$1/events" "$2/events" || exit 99
                           exec trace-cmd extract -o "$3"' \
           sh "$view" "$TRACEFS" "$p.trace.dat" >/dev/null 2>"$p.extract.log"; }; then
    if [ -s "$p.trace.dat" ]; then
      cat "$p.extract.log" >&2; rm -rf "$view"; tk_die "trace-cmd extract failed"
    fi
    echo "note: reduced kallsyms/events view unavailable; storing everything" >&2
    trace-cmd extract -o "$p.trace.dat" >/dev/null 2>"$p.extract.log" ||
      { cat "$p.extract.log" >&2; rm -rf "$view"; tk_die "trace-cmd extract failed"; }
  fi
  rm -rf "$view"
  rm -f "$p.extract.log"
  trace-cmd convert --file-version 6 -i "$p.trace.dat" -o "$p.v6.trace.dat" 2>/dev/null ||
    tk_die "trace-cmd convert to v6 failed"
}

# Text forms derived from the binary files (the anchor tools' own output).
tk_derive_texts() {
  local p=$1
  perf script -i "$p.perf.data" > "$p.perf-script.txt" 2>/dev/null ||
    tk_die "perf script failed on $p.perf.data"
  trace-cmd report -i "$p.trace.dat" > "$p.report.txt" 2>/dev/null ||
    tk_die "trace-cmd report failed on $p.trace.dat"
  trace-cmd report -R -i "$p.trace.dat" > "$p.report-raw.txt" 2>/dev/null ||
    tk_die "trace-cmd report -R failed on $p.trace.dat"
}

TK_PERF_PID=""
# Starts `perf record -a` in the background and returns once its events are enabled:
# tk_perf_start OUT.perf.data -e ev -e ev ...   Perf starts disabled (-D -1) and is enabled
# through its control fifo; the "ack" reply means every counter is on.
tk_perf_start() {
  local out=$1; shift
  TK_PERF_OUT=$out
  rm -f "$out" "$out.ctl" "$out.ack"
  mkfifo "$out.ctl" "$out.ack" || tk_die "mkfifo"
  # TK_PERF_RECORD: the recording command ("perf sched record" adds -a -R -c 1 and its
  # events); TK_PERF_TAIL: trailing words, e.g. "-- sleep 60" as a placeholder workload.
  ${TK_PERF_RECORD:-perf record -a} -q -D -1 --control "fifo:$out.ctl,$out.ack" -o "$out" "$@" \
    ${TK_PERF_TAIL:-} >/dev/null 2>"$out.log" &
  TK_PERF_PID=$!
  exec 8<>"$out.ctl" 9<>"$out.ack"   # read-write: never blocks, even if perf died
  echo enable >&8
  local reply=""
  read -r -t 20 reply <&9
  [ "$reply" = ack ] || { cat "$out.log" >&2; tk_die "perf record did not start (no ack)"; }
  rm -f "$out.log"
  sleep 0.05
}

tk_perf_stop() {
  [ -n "$TK_PERF_PID" ] || return 0
  kill -INT "$TK_PERF_PID" 2>/dev/null
  wait "$TK_PERF_PID" 2>/dev/null
  TK_PERF_PID=""
  exec 8>&- 9<&-
  rm -f "$TK_PERF_OUT.ctl" "$TK_PERF_OUT.ack"
}

# Kills perf (if still running) without waiting for our usual orderly stop.
tk_perf_abort() {
  [ -n "$TK_PERF_PID" ] && kill -INT "$TK_PERF_PID" 2>/dev/null && wait "$TK_PERF_PID" 2>/dev/null
  TK_PERF_PID=""
  return 0
}
