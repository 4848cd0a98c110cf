#!/usr/bin/env bash
# The layers of tk, checked on the source tree (#include lines and CMake links):
#   core      includes nothing from parsers/, analyses/ or cli/
#   parsers   include core/ (and each other), never analyses/ or cli/
#   analyses  include core/ (and each other), never parsers/ or cli/: they know no format
#   cli       may include everything, but asks the registry for an input's format (DetectParser,
#             DescribeInput, the pipeline's facts): no command calls DetectFormat itself
# Usage: check_layering.sh SOURCE_DIR   (prints each violation, exit 1 when there is one)
#        check_layering.sh --self-test  (a made-up tree with one violation per rule must fail,
#                                        one without must pass)
set -u

# Prints the #include lines of DIR's C++ files that name a top directory in ALTERNATION
# ("parsers|cli"), quoted or bracketed, relative ("../parsers/x.h") or not.
includes_of() {
  local root=$1 dir=$2 alternation=$3
  [ -d "$root/$dir" ] || return 0
  grep -rnE --include='*.h' --include='*.hh' --include='*.hpp' --include='*.cc' \
    --include='*.cpp' --include='*.c' \
    "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]([.]{1,2}/)*($alternation)/" "$root/$dir" |
    sed "s|^$root/||"
}

# Prints the lines of DIR's C++ files that call FUNCTION (comments aside).
calls_of() {
  local root=$1 dir=$2 fn=$3
  [ -d "$root/$dir" ] || return 0
  grep -rnE --include='*.h' --include='*.cc' "\<$fn[[:space:]]*\(" "$root/$dir" |
    grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' | sed "s|^$root/||"
}

# The static libraries tk_<dir> that the CMakeLists.txt under TOP/*/ define.
libs_of() {
  local root=$1 top=$2 d
  for d in "$root/$top"/*/; do
    [ -f "$d/CMakeLists.txt" ] && printf 'tk_%s\n' "$(basename "$d")"
  done
}

# Prints the lines of DIR's CMakeLists.txt files that name one of the libraries LIBS.
links_of() {
  local root=$1 dir=$2; shift 2
  [ -d "$root/$dir" ] && [ $# -gt 0 ] || return 0
  local alternation
  alternation=$(printf '%s|' "$@")
  grep -rnwE --include='CMakeLists.txt' "${alternation%|}" "$root/$dir" |
    grep -v 'add_library' | sed "s|^$root/||"
}

check() {
  local root=$1 status=0 hits
  local -a parser_libs analysis_libs
  mapfile -t parser_libs < <(libs_of "$root" parsers; echo tk_parsers)
  mapfile -t analysis_libs < <(libs_of "$root" analyses)
  report() {  # RULE HITS
    [ -z "$2" ] && return 0
    printf 'layering: %s:\n%s\n' "$1" "$2"
    status=1
  }
  report "core/ includes parsers/, analyses/ or cli/" "$(includes_of "$root" core 'parsers|analyses|cli')"
  report "parsers/ include analyses/ or cli/" "$(includes_of "$root" parsers 'analyses|cli')"
  report "analyses/ include parsers/ or cli/" "$(includes_of "$root" analyses 'parsers|cli')"
  report "cli/ detects a format itself (ask the registry: DetectParser, DescribeInput)" \
    "$(calls_of "$root" cli 'DetectFormat')"
  report "core/ links a parser, analysis or the CLI" \
    "$(links_of "$root" core "${parser_libs[@]}" "${analysis_libs[@]}" tk_cli)"
  report "parsers/ link an analysis or the CLI" \
    "$(links_of "$root" parsers "${analysis_libs[@]}" tk_cli)"
  report "analyses/ link a parser or the CLI" \
    "$(links_of "$root" analyses "${parser_libs[@]}" tk_cli)"
  return $status
}

self_test() {
  local tmp rc=0
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$tmp"/{core,parsers/text,analyses/fold,cli}
  echo 'add_library(tk_text STATIC text.cc)' >"$tmp/parsers/text/CMakeLists.txt"
  echo 'add_library(tk_fold STATIC fold.cc)' >"$tmp/analyses/fold/CMakeLists.txt"
  printf '#include "core/event.h"\n#include <vector>\n' >"$tmp/analyses/fold/ok.cc"
  printf '#include "core/event.h"\n#include "analyses/fold/fold.h"\n' >"$tmp/cli/ok.cc"
  check "$tmp" >/dev/null || { echo "self-test: a clean tree failed"; rc=1; }
  local -a cases=(
    'analyses/fold/fold.cc|#include "parsers/text/text.h"'
    'analyses/fold/fold.h|  #  include "cli/common.h"'
    'analyses/fold/x.cc|#include "../parsers/text/text.h"'
    'core/event.h|#include "analyses/fold/fold.h"'
    'core/sink.cc|#include <parsers/text/text.h>'
    'core/x.h|#include "cli/common.h"'
    'parsers/text/text.cc|#include "analyses/fold/fold.h"'
    'parsers/text/text.h|#include "cli/common.h"'
    'analyses/fold/CMakeLists.txt|target_link_libraries(tk_fold PUBLIC tk_core tk_text)'
    'parsers/text/CMakeLists.txt|target_link_libraries(tk_text PUBLIC tk_fold)'
    'cli/ok.cc|  Format f = DetectFormat(*head);'
  )
  local c file line backup
  for c in "${cases[@]}"; do
    file=${c%%|*} line=${c#*|}
    backup=$(cat "$tmp/$file" 2>/dev/null || true)
    printf '%s\n' "$line" >>"$tmp/$file"
    if check "$tmp" >/dev/null; then
      echo "self-test: not caught: $file: $line"
      rc=1
    fi
    if [ -n "$backup" ]; then printf '%s\n' "$backup" >"$tmp/$file"; else rm -f "$tmp/$file"; fi
  done
  [ $rc -eq 0 ] && echo "self-test: every violation caught, the clean tree passes"
  return $rc
}

case "${1:-}" in
  --self-test) self_test ;;
  "") echo "usage: $0 SOURCE_DIR | --self-test" >&2; exit 2 ;;
  *) check "$1" && echo "layering: ok" ;;
esac
