#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Install test: what a user of an installed prefix gets (doc/install.rst).
#   1. configure the source tree with -Dtests=false and a temporary
#      --prefix, check that no test is registered and that every program
#      built is an installed one, build and install;
#   2. the prefix holds the public headers only (include/mdevx, and
#      include/swdev: libswdev's, out of reach of the other .pc files), the
#      programs (no dpdk-test) and the libraries; the functions the headers
#      declare are exactly those the libraries export, and libmdevx_share
#      has no test hook;
#   3. the installed programs and libraries find our libraries in the
#      prefix without LD_LIBRARY_PATH (ldd, and --help of each program);
#   4. test/install/share_client.c and share_pair.c, built with nothing
#      but `pkg-config --cflags --libs libmdevx_share`, and
#      test/install/mdevx_client.c with `... libmdevx`, run against the
#      installed mlx5-swdev and print their OK lines (share_pair, a primary
#      and its secondary, needs free hugepages: without, it is built and
#      not run, said so); every C example of doc/*.rst is one of these
#      files, shown as it is (devtools/check-doc-examples.py);
#   5. a configuration for the system prefix (/usr) writes no -Wl,-rpath in
#      the .pc files and no RUNPATH.
#
# usage: test-install.sh [--keep]   (--keep: leave the temporary directory)
# env:   CC (default cc) for the clients.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
keep=0
[ "${1:-}" = "--keep" ] && keep=1
if [ "${1:-}" = "--help" ]; then
	sed -n '4,23p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
fi
cc=${CC:-cc}

tmp=$(mktemp -d /tmp/mdevx-install.XXXXXX)
prefix="$tmp/prefix"
eal_prefix="mdevx_install_$$"
sock="$tmp/swdev.sock"
daemon_started=0

cleanup() {
	if [ "$daemon_started" -eq 1 ]; then
		MLX5_SWDEV="$prefix/bin/mlx5-swdev" "$top/devtools/swdev-start.sh" stop "$sock" \
			>/dev/null 2>&1
	fi
	rm -rf /var/run/dpdk/"$eal_prefix" /var/run/dpdk/"${eal_prefix}_pair" 2>/dev/null
	for m in $(awk '$3 == "hugetlbfs" { print $2 }' /proc/mounts); do
		rm -f "$m/${eal_prefix}_pair"map_* 2>/dev/null
	done
	if [ "$keep" -eq 1 ]; then
		echo "kept: $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	echo "FAIL: $*"
	exit 1
}
ok() {
	echo "ok: $*"
}

# Runs a command with no LD_LIBRARY_PATH: what is found must come from
# RUNPATH or the system.
run_clean() {
	env -u LD_LIBRARY_PATH "$@"
}

# ---- 1. configure -Dtests=false, build, install -------------------------
build="$tmp/build"
meson setup "$build" "$top" --prefix="$prefix" -Dtests=false -Dfuzz=disabled \
	> "$tmp/setup.log" 2>&1 || { cat "$tmp/setup.log"; fail "meson setup"; }
[ "$(meson introspect "$build" --tests)" = "[]" ] ||
	fail "-Dtests=false registers tests: $(meson introspect "$build" --tests)"
[ "$(meson introspect "$build" --benchmarks)" = "[]" ] || fail "-Dtests=false registers benchmarks"
not_installed=$(meson introspect "$build" --targets | python3 -c '
import json, sys
print(" ".join(t["name"] for t in json.load(sys.stdin)
               if t["type"] == "executable" and not t["installed"]))')
[ -z "$not_installed" ] || fail "-Dtests=false builds programs that are not installed: $not_installed"
ok "-Dtests=false: no test, no benchmark, every program built is installed"
ninja -C "$build" -j1 > "$tmp/build.log" 2>&1 || { tail -30 "$tmp/build.log"; fail "ninja"; }
meson install -C "$build" --quiet > "$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; fail "meson install"; }

libdir=$(meson introspect "$build" --buildoptions | python3 -c '
import json, sys
print({o["name"]: o["value"] for o in json.load(sys.stdin)}["libdir"])')
case "$libdir" in
/*) ;;
*) libdir="$prefix/$libdir" ;;
esac
export PKG_CONFIG_PATH="$libdir/pkgconfig"
unset PKG_CONFIG_LIBDIR
ok "installed into $prefix (libdir $libdir)"

# ---- 2. what the prefix holds ---------------------------------------------
headers=$(cd "$prefix/include" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')
want_headers=$(printf '%s\n' mdevx/mdevx.h mdevx/mdevx_attach.h mdevx/mdevx_share.h \
	swdev/swdev_client.h swdev/swdev_types.h | sort | tr '\n' ' ')
[ "$headers" = "$want_headers" ] || fail "installed headers: $headers (want: $want_headers)"
ok "headers: $headers"
# swdev_client.h is libswdev's: the flags of libmdevx_share alone do not reach it.
printf '#include <swdev_client.h>\n' > "$tmp/swdev_only.c"
# shellcheck disable=SC2046
! "$cc" -E $(pkg-config --cflags libmdevx_share) "$tmp/swdev_only.c" > /dev/null 2>&1 ||
	fail "swdev_client.h is reachable with libmdevx_share's flags"
ok "swdev_client.h needs pkg-config libswdev (which also links it)"
programs=$(cd "$prefix/bin" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')
[ "$programs" = "mlx5-attach-server mlx5-share-demo mlx5-share-info mlx5-swdev " ] ||
	fail "installed programs: $programs"
ok "programs: $programs"
for l in libmdevx_common_mlx5 libmdevx_share libmdevx_attach libswdev; do
	[ -f "$libdir/$l.so" ] || fail "$l.so not installed"
done
for pc in libmdevx libmdevx_share libmdevx_attach libswdev; do
	[ -f "$libdir/pkgconfig/$pc.pc" ] || fail "$pc.pc not installed"
done

# Every mdevx_/swdev_ function the installed headers declare is exported,
# and every function exported in a public version node is declared (those of
# node INTERNAL are for the project's own libraries: no installed header
# declares them).
for h in $headers; do
	printf '#include <%s>\n' "${h#*/}"
done > "$tmp/headers.c"
# shellcheck disable=SC2046
"$cc" -E -P $(pkg-config --cflags libmdevx_share libswdev) "$tmp/headers.c" \
	> "$tmp/headers.i" || fail "the installed headers do not preprocess"
grep -oE '\b(mdevx|swdev)_[a-z0-9_]+ *\(' "$tmp/headers.i" | tr -d ' (' | sort -u \
	> "$tmp/declared"
for l in "$libdir"/lib*.so; do
	nm -D --defined-only "$l" |
		awk '$2 == "T" && $3 !~ /@INTERNAL$/ { sub(/@.*/, "", $3); print $3 }'
done | sort -u > "$tmp/exported"
missing=$(comm -23 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
[ -z "$missing" ] || fail "declared by the installed headers, exported by no library: $missing"
undeclared=$(comm -13 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
[ -z "$undeclared" ] || fail "exported, declared by no installed header: $undeclared"
ok "$(wc -l < "$tmp/declared") functions declared by the headers, exactly the exported ones"
# The installed libmdevx_share has no test hook at all, exported or not.
hooks=$(nm "$libdir/libmdevx_share.so" 2>/dev/null | awk '$3 ~ /test_/ { print $3 }' | tr '\n' ' ')
[ -z "$hooks" ] || fail "libmdevx_share.so has test hooks: $hooks"
ok "libmdevx_share.so has no test hook"

# ---- 3. installed binaries find their libraries ----------------------------
for f in "$prefix"/bin/* "$libdir"/lib*.so; do
	run_clean ldd "$f" > "$tmp/ldd" 2>&1 || fail "ldd $f"
	if grep -q 'not found' "$tmp/ldd"; then
		fail "$(basename "$f"): $(grep 'not found' "$tmp/ldd" | tr -s ' \t' ' ')"
	fi
	for l in libmdevx_common_mlx5 libmdevx_share libmdevx_attach libswdev; do
		where=$(awk -v l="$l.so." 'index($1, l) == 1 { print $3 }' "$tmp/ldd")
		[ -z "$where" ] || [ "$(dirname "$where")" = "$libdir" ] ||
			fail "$(basename "$f") loads $l from $where, not from $libdir"
	done
done
ok "every installed program and library loads ours from $libdir"
# The DPDK-facing libraries reach the device through rdma-core alone: DPDK,
# libibverbs, libmlx5 and libc, never the software device's client or libpcap.
for l in libmdevx_common_mlx5 libmdevx_share libmdevx_attach; do
	run_clean ldd "$libdir/$l.so" > "$tmp/ldd" 2>&1 || fail "ldd $l.so"
	bad=$(grep -Eo '(libswdev|libpcap)[^ ]*' "$tmp/ldd" | sort -u | tr '\n' ' ')
	[ -z "$bad" ] || fail "$l.so loads $bad"
	grep -q 'libmlx5\.so' "$tmp/ldd" || fail "$l.so does not load libmlx5"
done
ok "libmdevx, libmdevx_share and libmdevx_attach load no libswdev or libpcap"
for p in mlx5-swdev mlx5-share-info mlx5-share-demo mlx5-attach-server; do
	run_clean "$prefix/bin/$p" --help > "$tmp/help" 2>&1 ||
		{ cat "$tmp/help"; fail "$p --help exits $?"; }
	grep -q 'Usage' "$tmp/help" || fail "$p --help: no usage"
done
ok "mlx5-swdev, mlx5-share-info, mlx5-share-demo and mlx5-attach-server --help run" \
	"without LD_LIBRARY_PATH"

# ---- 4. clients built with pkg-config alone ---------------------------------
# The documentation shows the clients: its copies must be the files.
python3 "$top/devtools/check-doc-examples.py" "$top" || fail "doc examples"
ok "every C example of doc/*.rst is a test/install program, shown as it is"

flags_share=$(pkg-config --cflags --libs libmdevx_share) || fail "pkg-config libmdevx_share"
flags_mdevx=$(pkg-config --cflags --libs libmdevx) || fail "pkg-config libmdevx"
echo "pkg-config --cflags --libs libmdevx_share: $flags_share" | sed 's/ -lrte_[a-z0-9_]*//g'
# shellcheck disable=SC2086
"$cc" -Wall -Wextra -Werror -o "$tmp/share_client" "$top/test/install/share_client.c" $flags_share ||
	fail "share_client does not build with pkg-config libmdevx_share alone"
# shellcheck disable=SC2086
"$cc" -Wall -Wextra -Werror -o "$tmp/share_pair" "$top/test/install/share_pair.c" $flags_share ||
	fail "share_pair does not build with pkg-config libmdevx_share alone"
# shellcheck disable=SC2086
"$cc" -Wall -Wextra -Werror -o "$tmp/mdevx_client" "$top/test/install/mdevx_client.c" $flags_mdevx ||
	fail "mdevx_client does not build with pkg-config libmdevx alone"
ok "the three clients built and linked with pkg-config alone"

# libmdevx_attach: its header (which includes mdevx.h) and library with its
# .pc file alone; a call that needs no device runs.
cat > "$tmp/attach_client.c" <<'EOF2'
#include <errno.h>
#include <stdio.h>
#include <mdevx_attach.h>

int
main(void)
{
	struct mdevx_attach_stats st;

	if (mdevx_attach_server_stop(NULL) != -EINVAL ||
	    mdevx_attach_server_stats(NULL, &st) != -EINVAL)
		return 1;
	printf("attach_client: %s: OK\n", mdevx_obj_kind_name(MDEVX_OBJ_PD));
	return 0;
}
EOF2
flags_attach=$(pkg-config --cflags --libs libmdevx_attach) || fail "pkg-config libmdevx_attach"
# shellcheck disable=SC2086
"$cc" -Wall -Wextra -Werror -o "$tmp/attach_client" "$tmp/attach_client.c" $flags_attach ||
	fail "attach_client does not build with pkg-config libmdevx_attach alone"
run_clean "$tmp/attach_client" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "attach_client"; }
grep -q '^attach_client: pd: OK$' "$tmp/out" || fail "attach_client: $(cat "$tmp/out")"
ok "a libmdevx_attach client built with pkg-config alone runs"

MLX5_SWDEV="$prefix/bin/mlx5-swdev" run_clean "$top/devtools/swdev-start.sh" start "$sock" \
	--device mlx5_0 --log-level warn > /dev/null || fail "the installed mlx5-swdev does not start"
daemon_started=1

# The clients open rdma:mlx5_0 through libmlx5: under the installed launcher.
run_clean "$prefix/bin/mlx5-swdev" run --socket "$sock" -- "$tmp/mdevx_client" > "$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ "$rc" -eq 0 ] || fail "mdevx_client exits $rc"
grep -qE '^mdevx_client: counter [0-9]+ bulk 4 imported and read on rdma:mlx5_0: OK$' \
	"$tmp/out" || fail "mdevx_client: no OK line"

run_clean "$prefix/bin/mlx5-swdev" run --socket "$sock" -- "$tmp/share_client" --no-pci --no-huge -m 64 \
	--file-prefix="$eal_prefix" --log-level=lib.eal:warning > "$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ "$rc" -eq 0 ] || fail "share_client exits $rc"
grep -qE '^share_client: install-counters published \(1 record\), looked up \(counter [0-9]+, bulk 8\), imported, read, withdrawn on rdma:mlx5_0: OK$' \
	"$tmp/out" || fail "share_client: no OK line"
free_pages=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
if [ "${free_pages:-0}" -ge 64 ] && awk '$3 == "hugetlbfs" { f = 1 } END { exit !f }' /proc/mounts
then
	run_clean "$prefix/bin/mlx5-swdev" run --socket "$sock" -- "$tmp/share_pair" --no-pci \
		--file-prefix="${eal_prefix}_pair" --log-level=lib.eal:warning > "$tmp/out" 2>&1
	rc=$?
	cat "$tmp/out"
	[ "$rc" -eq 0 ] || fail "share_pair exits $rc"
	grep -q '^share_pair secondary: imported rx-counters and rx-tir, read 128 counters, steered UDP 4789 to the TIR: OK$' \
		"$tmp/out" || fail "share_pair: no OK line of the secondary"
	grep -q '^share_pair primary: published rx-counters and rx-tir, the secondary done, withdrawn and closed on rdma:mlx5_0: OK$' \
		"$tmp/out" || fail "share_pair: no OK line of the primary"
else
	echo "share_pair: built, not run: fewer than 64 free 2 MB hugepages or no hugetlbfs" \
		"(devtools/setup-hugepages.sh)"
fi
ok "the clients ran against the installed libraries and daemon"

# ---- 5. a system prefix gets no rpath ---------------------------------------
meson setup "$tmp/build-usr" "$top" --prefix=/usr -Dtests=false -Dfuzz=disabled \
	> "$tmp/setup-usr.log" 2>&1 || { cat "$tmp/setup-usr.log"; fail "meson setup --prefix=/usr"; }
for pc in "$tmp"/build-usr/meson-private/lib*.pc; do
	! grep -q 'rpath' "$pc" || fail "$(basename "$pc") of prefix /usr: $(grep rpath "$pc")"
done
grep -q 'install RUNPATH *: *none' "$tmp/setup-usr.log" ||
	fail "prefix /usr: RUNPATH is not none: $(grep 'install RUNPATH' "$tmp/setup-usr.log")"
grep -q "install RUNPATH *: *$libdir" "$tmp/setup.log" ||
	fail "private prefix: RUNPATH is not $libdir"
ok "prefix /usr: no RUNPATH, no -Wl,-rpath; private prefix: RUNPATH $libdir"

echo "install test OK"
