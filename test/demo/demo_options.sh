#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# The demo's option table: every invalid value is refused with exit status
# 2 and a message naming the option, before anything is built or started
# (no setup.sh step, no software device, no pcap written), by
# devtools/demo.sh, devtools/run-demo.sh and mlx5-share-demo itself;
# valid values (the ends of every range) pass demo.sh's and the binary's
# --check-options alike; --help exits 0 everywhere.
#
# usage: demo_options.sh BUILD_DIR
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
demo="$build/app/mlx5-share-demo/mlx5-share-demo"
tmp=$(mktemp -d /tmp/mdevx-demo-opts.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
cases=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# Input files: not a pcap, a pcap whose only frame is cut short by the capture.
echo "not a capture" >"$tmp/text.pcap"
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00' >"$tmp/short.pcap"
printf '\xff\xff\x00\x00\x01\x00\x00\x00' >>"$tmp/short.pcap"
printf '\x00\x00\x00\x00\x00\x00\x00\x00\x0e\x00\x00\x00\x3c\x00\x00\x00' >>"$tmp/short.pcap"
printf '\xff\xff\xff\xff\xff\xff\x02\x00\x00\x00\x00\x01\x08\x00' >>"$tmp/short.pcap"
: >"$tmp/empty.pcap"

# option|arguments (separated by spaces)|what the message must name
bad_table=(
	"--secondaries|--secondaries 0|1..16"
	"--secondaries|--secondaries 17|1..16"
	"--secondaries|--secondaries -1|1..16"
	"--secondaries|--secondaries=abc|1..16"
	"--secondaries|--secondaries 4294967297|1..16"
	"--bulks|--bulks 0|1..16"
	"--bulks|--bulks=17|1..16"
	"--bulks|--bulks 3.5|1..16"
	"--duration|--duration -5|0..600000"
	"--duration|--duration abc|0..600000"
	"--duration|--duration 600001|0..600000"
	"--duration|--duration 0x10|0..600000"
	"--duration|--duration 5ms|0..600000"
	"--duration|--duration=|0..600000"
	"--duration|--duration 18446744073709551616|0..600000"
	"--duration|--duration|needs a value"
	"--counter-period|--counter-period -1|0..60000"
	"--counter-period|--counter-period 60001|0..60000"
	"--hold|--hold 3600001|0..3600000"
	"--hold|--hold +5|0..3600000"
	"--device|--device a:b|1..31"
	"--device|--device=|1..31"
	"--device|--device abcdefghijklmnopqrstuvwxyz0123456|1..31"
	"--pcap|--pcap=|empty"
	"--pcap|--pcap $tmp/missing.pcap|missing.pcap"
	"--pcap|--pcap $tmp|$tmp"
	"--pcap|--pcap $tmp/text.pcap|text.pcap"
	"--pcap|--pcap $tmp/empty.pcap|empty.pcap"
	"--dur|--dur 5|unknown option"
	"--bogus|--bogus=1|unknown option"
	"stray|--duration 5 stray|unexpected argument"
)
# Refused by the binary only (demo.sh checks the file's kind, the demo its frames).
binary_table=(
	"--pcap|--pcap $tmp/short.pcap|cut short"
)
good_table=(
	"--secondaries 1" "--secondaries 16" "--bulks=1" "--bulks 16" "--duration 0"
	"--duration 600000" "--duration 007" "--counter-period 0" "--counter-period 60000"
	"--hold 0" "--hold 3600000" "--device mlx5_1" "--device abcdefghijklmnopqrstuvwxyz01234"
	"--secondaries 16 --bulks 16 --duration=10 --counter-period=20 --hold 1 --device x.y-z_0"
)

# $1: what; $2: option to name; $3: text to find; $4...: command. Exit 2,
# the option and the text in the message, and no step of a started demo.
expect_refused() {
	local what=$1 opt=$2 text=$3 rc out
	shift 3
	cases=$((cases + 1))
	out=$("$@" 2>&1 </dev/null)
	rc=$?
	[ "$rc" -eq 2 ] || fail "$what: exit $rc, not 2: $*"
	case "$out" in
	*"$opt"*"$text"* | *"$opt"*) ;;
	*) fail "$what: the message does not name $opt: $out" ;;
	esac
	case "$out" in
	*"$text"*) ;;
	*) fail "$what: the message does not say \"$text\": $out" ;;
	esac
	case "$out" in
	*"== "* | *"software device"* | *"traffic:"* | *"primary"*)
		fail "$what: work started before the refusal: $out" ;;
	esac
	[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "$what: more than one line: $out"
}

for row in "${bad_table[@]}" "${binary_table[@]}"; do
	IFS='|' read -r opt args text <<<"$row"
	read -r -a argv <<<"$args"
	# "--duration=" and "--pcap=" keep their empty value.
	expect_refused "mlx5-share-demo $args" "$opt" "$text" "$demo" --check-options "${argv[@]}"
	expect_refused "mlx5-share-demo (EAL) $args" "$opt" "$text" "$demo" --no-pci -- "${argv[@]}"
	expect_refused "run-demo.sh $args" "$opt" "$text" "$top/devtools/run-demo.sh" "$build" \
		"${argv[@]}"
done
for row in "${bad_table[@]}"; do
	IFS='|' read -r opt args text <<<"$row"
	read -r -a argv <<<"$args"
	expect_refused "demo.sh $args" "$opt" "$text" "$top/devtools/demo.sh" "${argv[@]}"
	expect_refused "demo.sh --check-options $args" "$opt" "$text" \
		"$top/devtools/demo.sh" --check-options "${argv[@]}"
done
for args in "${good_table[@]}"; do
	read -r -a argv <<<"$args"
	cases=$((cases + 2))
	out=$("$demo" --check-options "${argv[@]}" 2>&1) || fail "mlx5-share-demo refuses $args: $out"
	out=$("$top/devtools/demo.sh" --check-options "${argv[@]}" 2>&1) ||
		fail "demo.sh refuses $args: $out"
done
for cmd in "$demo --help" "$top/devtools/demo.sh --help" \
	   "$top/devtools/run-demo.sh $build --duration 5 --help"; do
	cases=$((cases + 1))
	read -r -a argv <<<"$cmd"
	out=$("${argv[@]}" 2>&1 </dev/null)
	rc=$?
	[ "$rc" -eq 0 ] || fail "$cmd: exit $rc"
	case "$out" in
	*--duration*) ;;
	*) fail "$cmd: the help does not list --duration" ;;
	esac
done
cases=$((cases + 1))
"$top/devtools/run-demo.sh" --help >/dev/null 2>&1 || fail "run-demo.sh --help: exit $?"
echo "$cases cases, $fails failures"
[ "$fails" -eq 0 ]
