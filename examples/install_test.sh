#!/bin/bash
# install_test.sh BUILD_DIR - installs the build into a temporary prefix,
# then builds the two-line example against it twice, as a user would:
# with pkg-config (shared, and static with --static) and with
# find_package(ratelab CONFIG); runs each and checks what was installed.
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || fail "cmake --install: $(cat "$tmp/install.log")"
for f in include/ratelab/limit.h include/ratelab/version.h include/ratelab/store.h bin/ratelab; do
	[ -e "$prefix/$f" ] || fail "not installed: $f"
done
[ -e "$prefix/include/ratelab/version.h.in" ] && fail "the version.h template was installed"
pc=$(find "$prefix" -name ratelab.pc) && [ -n "$pc" ] || fail "no ratelab.pc"
libdir=$(dirname "$(dirname "$pc")")
[ -e "$libdir/libratelab.a" ] || fail "no libratelab.a in $libdir"
so=$(ls "$libdir"/libratelab.so.*.*.* 2>/dev/null) && [ -n "$so" ] || fail "no libratelab.so.X.Y.Z"
soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = "libratelab.so.0" ] || fail "SONAME '$soname', want libratelab.so.0"
# the Redis module: beside the libraries, exporting only its entry point
mod=$libdir/ratelab/ratelab.so
[ -e "$mod" ] || fail "no Redis module $mod"
[ "$(nm -D --defined-only "$mod" | awk '{ print $3 }')" = "RedisModule_OnLoad" ] ||
	fail "$mod exports more than RedisModule_OnLoad: $(nm -D --defined-only "$mod" | head -5)"
"$prefix/bin/ratelab" --version | grep -qx 'ratelab 0\.1\.0' || fail "installed ratelab --version"
[ -e "$prefix/share/ratelab/scenarios/constant.ini" ] || fail "the scenarios were not installed"
(cd "$prefix/share/ratelab/scenarios" && "$prefix/bin/ratelab" sim --quiet --no-timing --out "$tmp/sim" replay.ini >/dev/null) ||
	fail "installed ratelab sim on an installed scenario"
[ -s "$tmp/sim/summary.csv" ] || fail "installed ratelab sim wrote no summary"

# pkg-config, shared (rpath so the program finds the library) and static.
export PKG_CONFIG_PATH=$libdir/pkgconfig
[ "$(pkg-config --modversion ratelab)" = "0.1.0" ] || fail "pkg-config --modversion"
cc -std=c11 -Wall -Werror "$here/two_line.c" -o "$tmp/pc_shared" $(pkg-config --cflags --libs ratelab) \
	-Wl,-rpath,"$(pkg-config --variable=libdir ratelab)" || fail "pkg-config shared build"
"$tmp/pc_shared" | grep -qx 'admitted 20 of 25' || fail "pkg-config shared run"
linked=$(ldd "$tmp/pc_shared" | awk '$1 == "libratelab.so.0" { print $3 }')
[ "$(readlink -f "$linked")" = "$(readlink -f "$so")" ] || fail "linked to '$linked', not the installed $so"
cc -std=c11 -Wall -Werror "$here/two_line.c" -o "$tmp/pc_static" \
	$(pkg-config --cflags ratelab) -Wl,-Bstatic $(pkg-config --libs-only-l --static ratelab | sed 's/-pthread//') \
	-Wl,-Bdynamic -pthread -L"$libdir" || fail "pkg-config static build"
"$tmp/pc_static" | grep -qx 'admitted 20 of 25' || fail "pkg-config static run"

# find_package(ratelab CONFIG): imported targets ratelab::ratelab, ratelab::ratelab_static.
cmake -S "$here/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/cfg.log" 2>&1 ||
	fail "find_package configure: $(cat "$tmp/cfg.log")"
cmake --build "$tmp/consumer" >"$tmp/build.log" 2>&1 || fail "find_package build: $(cat "$tmp/build.log")"
"$tmp/consumer/two_line" | grep -qx 'admitted 20 of 25' || fail "find_package shared run"
"$tmp/consumer/two_line_static" | grep -qx 'admitted 20 of 25' || fail "find_package static run"
echo ok
