#!/usr/bin/env bash
# Installs tk's build, test and oracle dependencies from Debian 12 packages.
# Idempotent: packages already installed are skipped; apt-get runs only when something is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config git
  clang libclang-rt-14-dev        # ASan/UBSan/libFuzzer builds
  libtraceevent-dev               # tracepoint payloads, kbuffer
  libelf-dev libdw-dev            # symbolization (elfutils)
  libabsl-dev                     # Status, containers, strings
  libzstd-dev                     # perf -z, trace.dat v7
  libgtest-dev libgmock-dev       # tests
  libbenchmark-dev                # bench/
  libcli11-dev                    # command line
  nlohmann-json3-dev              # JSON writer
  linux-libc-dev                  # syscall tables (asm/unistd_64.h, unistd_32.h) for tk syscalls
  libprotobuf-dev protobuf-compiler zlib1g-dev  # tk pprof: profile.proto, gzip
  golang-1.19-go                  # test oracle only: go tool pprof reads tk pprof's output
  libsqlite3-dev sqlite3          # tk sql (the CLI only in tests)
  trace-cmd libtracecmd-dev       # test oracles only
  linux-perf                      # test oracle and live recording
  perl                            # stackcollapse-perf.pl comparisons in bench
  gcc-multilib                    # testdata/dwarf/record32.sh only: the i386-ABI fixture (-m32)
  e2fsprogs util-linux            # loop-device fixtures (mkfs.ext4, losetup)
  chromium libxml2-utils nodejs   # tk flamegraph tests: headless browser, xmllint, DevTools driver
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present" >&2
fi
