#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Test of app/mlx5-share-info and of the telemetry commands of the counter
# snapshot service, against the demo's primary (devtools/run-demo.sh with
# --hold): the tool's --json output and Debian's dpdk-telemetry.py answers
# are parsed and compared with what the demo says it injected into each
# bulk (names, kinds, per-counter values, the snapshot's age against the
# service's period). Without a primary the tool must say so and fail.
#
# usage: test-share-info.sh BUILD_DIR
set -u

if [ $# -ne 1 ] || [ "$1" = "--help" ]; then
	sed -n '4,10p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
tool="$build/app/mlx5-share-info/mlx5-share-info"
launcher="$build/app/mlx5-swdev/mlx5-swdev"
period=100
hold_ms=170000
tmp=$(mktemp -d /tmp/share-info-test.XXXXXX)
demo_pid=""
primary_pid=""
fails=0
passes=0
stale_dir=""

cleanup() {
	if [ -n "$primary_pid" ]; then
		kill -INT "$primary_pid" 2>/dev/null
	fi
	if [ -n "$demo_pid" ]; then
		# run-demo.sh stops its daemon and removes the prefix's files
		wait "$demo_pid" 2>/dev/null
	fi
	[ -n "$stale_dir" ] && rm -rf "$stale_dir"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

check() { # check DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then
		passes=$((passes + 1))
	else
		fails=$((fails + 1))
		echo "FAIL: $what"
	fi
}

runtime_base() {
	if [ "$(id -u)" -eq 0 ]; then echo /var/run/dpdk; else echo "${XDG_RUNTIME_DIR:-/tmp}/dpdk"; fi
}

echo "== no primary"
"$tool" --file-prefix=share_info_none_$$ -- --json >"$tmp/out" 2>"$tmp/err"
rc=$?
check "no primary: exit status not 0 ($rc)" test "$rc" -ne 0
check "no primary: nothing on stdout" test ! -s "$tmp/out"
check "no primary: the message says so" grep -q "no DPDK primary with file prefix" "$tmp/err"
cat "$tmp/err"
# a configuration file left by a primary that ended: nobody holds its lock
stale_dir="$(runtime_base)/share_info_stale_$$"
mkdir -p "$stale_dir" && : >"$stale_dir/config"
"$tool" --file-prefix=share_info_stale_$$ >"$tmp/out" 2>"$tmp/err"
rc=$?
check "stale config: exit status not 0 ($rc)" test "$rc" -ne 0
check "stale config: the message says so" grep -q "left from one that ended" "$tmp/err"
rm -rf "$stale_dir"
stale_dir=""
"$tool" --json >/dev/null 2>"$tmp/err"
check "tool options before --: usage error" test $? -eq 2
"$tool" --help >"$tmp/out"
check "--help" grep -q -- "--watch SECONDS" "$tmp/out"

echo "== the demo's primary, holding after its counter phase"
bash "$top/devtools/run-demo.sh" "$build" --duration 300 --secondaries 1 \
	--counter-period "$period" --hold "$hold_ms" >"$tmp/demo" 2>&1 &
demo_pid=$!
for _ in $(seq 1200); do
	grep -q '^hold: .* ms; look' "$tmp/demo" && break
	kill -0 "$demo_pid" 2>/dev/null || break
	sleep 0.1
done
if ! grep -q '^hold: .* ms; look' "$tmp/demo"; then
	cat "$tmp/demo"
	echo "FAIL: the demo did not reach its hold"
	exit 1
fi
grep '^hold:' "$tmp/demo"
prefix=$(sed -n 's/^hold: .*--file-prefix=\([^ ]*\) .*/\1/p' "$tmp/demo")
primary_pid=$(sed -n 's/^primary \([0-9]*\): device .*/\1/p' "$tmp/demo" | head -1)
sock=$(sed -n 's/^software device .*, socket \(.*\)$/\1/p' "$tmp/demo" | head -1)
echo "prefix $prefix, primary $primary_pid, socket $sock"
# The tool attaches to the demo's device (rdma:mlx5_0): under the launcher,
# as the demo's own processes.
info() {
	"$launcher" run --socket "$sock" -- "$tool" "$@"
}
check "the hold line names the launcher" grep -q \
	"^hold: .* ms; look with: .*mlx5-swdev run --socket $sock -- .*mlx5-share-info --file-prefix=$prefix" \
	"$tmp/demo"
grep '^hold: counters-' "$tmp/demo" >"$tmp/injected"

check_json() { # check_json FILE MODE: the tool's --json against the injected values
	python3 - "$1" "$tmp/injected" "$period" "$2" <<'EOF'
import json, re, sys
doc = json.load(open(sys.argv[1]))
period = int(sys.argv[3])
mode = sys.argv[4]
want = {}
for line in open(sys.argv[2]):
    m = re.match(r"hold: (\S+) packets=(\d+) bytes=(\d+) counters=([\d,]+)", line)
    want[m.group(1)] = (int(m.group(2)), int(m.group(3)),
                        set(int(x) for x in m.group(4).split(",")))
errs = []
devs = doc["devices"]
if [d["device"] for d in devs] != ["rdma:mlx5_0"]:
    errs.append("devices %r" % [d["device"] for d in devs])
d = devs[0]
svc = d["service"]
if svc is None or svc["period_ms"] != period or svc["bulks"] != len(want) \
        or svc["used"] != 128 * len(want) or svc["primary_alive"] != 1:
    errs.append("service %r" % svc)
# the primary's secondaries: this tool among them, attached, with no rule
peers = d.get("secondaries")
me = [p for p in peers or [] if p.get("self") == 1]
if not isinstance(peers, list) or len(me) != 1 or me[0]["attached"] != 1 \
        or me[0]["rules"] != 0 or not me[0]["id"].startswith("0x"):
    errs.append("secondaries %r" % peers)
recs = {r["name"]: r for r in d["records"]}
names = set(want) | {"tir-direct", "tir-rss"}
if set(recs) != names:
    errs.append("records %r" % sorted(recs))
for n in ("tir-direct", "tir-rss"):
    r = recs.get(n, {})
    if r.get("kind") != "tir" or r.get("import") != "ok" or r.get("state") != "published":
        errs.append("%s: %r" % (n, r))
for n, (pk, by, idx) in want.items():
    r = recs.get(n)
    if r is None:
        continue
    c = r.get("counters", {})
    if r["kind"] != "flow_counter" or r["bulk_size"] != 128 or r["import"] != "ok" \
            or r["generation"] < 1 or "error" in c:
        errs.append("%s: %r" % (n, {k: v for k, v in r.items() if k != "counters"}))
        continue
    if c["source"] != ("query" if mode == "fresh" else "snapshot"):
        errs.append("%s: source %s" % (n, c["source"]))
    if c["packets_total"] != pk or c["bytes_total"] != by or sum(c["packets"]) != pk \
            or sum(c["bytes"]) != by or len(c["packets"]) != 128:
        errs.append("%s: %d packets %d bytes, injected %d and %d"
                    % (n, c["packets_total"], c["bytes_total"], pk, by))
    moved = {i for i, v in enumerate(c["packets"]) if v}
    if moved != idx or any(c["bytes"][i] != 128 * c["packets"][i] for i in range(128)):
        errs.append("%s: counters %r moved, injected %r" % (n, sorted(moved), sorted(idx)))
    if mode == "snapshot":
        # the values are at most a period and a refresh old (and a little
        # scheduling slack on a loaded 2-CPU machine)
        bound = period + 2 * svc["last_round_ns"] / 1e6 + 50
        age_ms = c["age_ns"] / 1e6
        if c["primary_alive"] != 1 or c["refresh_seq"] < 1 or age_ms > bound:
            errs.append("%s: age %.1f ms (bound %.1f), seq %d" % (n, age_ms, bound,
                                                               c["refresh_seq"]))
for e in errs:
    print("  " + e)
sys.exit(1 if errs else 0)
EOF
}

echo "== mlx5-share-info --json (snapshot)"
info --file-prefix="$prefix" -- --json >"$tmp/snap.json" 2>"$tmp/err"
check "--json: exit 0" test $? -eq 0
check "--json: names, kinds, values, age" check_json "$tmp/snap.json" snapshot
echo "== mlx5-share-info --fresh --json"
info --file-prefix="$prefix" -- --fresh --json >"$tmp/fresh.json" 2>"$tmp/err"
check "--fresh --json: exit 0" test $? -eq 0
check "--fresh --json: the same values" check_json "$tmp/fresh.json" fresh
echo "== mlx5-share-info (table)"
info --file-prefix="$prefix" >"$tmp/table" 2>"$tmp/err"
check "table: exit 0" test $? -eq 0
check "table: a record line" grep -q "counters-0 .*flow_counter .*published" "$tmp/table"
check "table: the service line" grep -q "counter service: every $period ms" "$tmp/table"
check "table: the secondaries, this tool among them" grep -Eq \
	"^    pid [0-9]+ +attached +0 rules  \(this tool\)\$" "$tmp/table"
first=$(sed -n 's/^hold: counters-0 packets=\([0-9]*\) bytes=\([0-9]*\).*/\1 \2/p' "$tmp/injected")
check "table: counters-0's total" grep -Eq "^ +total +${first% *} +${first#* }\$" "$tmp/table"
echo "== mlx5-share-info --watch"
# run_watch OUT PATTERN N ARGS...: the tool with ARGS, output to OUT, until
# OUT holds N lines matching PATTERN (at most 120 s), then SIGINT; its status.
run_watch() {
	local out=$1 pat=$2 want=$3 pid i
	shift 3
	"$launcher" run --socket "$sock" -- "$tool" --file-prefix="$prefix" -- "$@" \
		>"$out" 2>"$tmp/err" &
	pid=$!
	for i in $(seq 1200); do
		[ "$(grep -c -- "$pat" "$out")" -ge "$want" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
}
run_watch "$tmp/watch" "round [0-9]*\$" 3 --watch 0.3
check "--watch: ends with status 0 on SIGINT" test $? -eq 0
check "--watch into a file: no terminal escapes" bash -c "! grep -q \$'\\033' '$tmp/watch'"
check "--watch into a file: one table after the other" grep -q "round 2\$" "$tmp/watch"
check "--watch: rates" grep -q "packets/s" "$tmp/watch"
# on a terminal (a pty): redrawn in place
python3 - "$tmp/watchtty" "$launcher" run --socket "$sock" -- "$tool" --file-prefix="$prefix" \
	-- --watch 0.3 <<'PY'
import os, pty, select, signal, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
# until the screen was redrawn twice (at most 120 s), then SIGINT
out, end = b"", time.time() + 120
while time.time() < end and out.count(b"\033[H") < 2:
    if select.select([fd], [], [], 0.1)[0]:
        try:
            out += os.read(fd, 65536)
        except OSError:
            break
os.kill(pid, signal.SIGINT)
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, st = os.waitpid(pid, 0)
open(sys.argv[1], "wb").write(out)
sys.exit(0 if os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0 else 1)
PY
check "--watch on a terminal: ends with status 0 on SIGINT" test $? -eq 0
check "--watch on a terminal: redraws in place" grep -q $'\033\\[H' "$tmp/watchtty"
run_watch "$tmp/watchj" '^{' 2 --watch 0.3 --json
check "--watch --json: lines of JSON" python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) >= 2, len(lines)
for l in lines:
    json.loads(l)' "$tmp/watchj"
info --file-prefix="$prefix" -- --device rdma:nope >/dev/null 2>"$tmp/err"
check "--device not shared: exit 1" test $? -eq 1

echo "== dpdk-telemetry.py against the primary"
tel() { # tel COMMAND: the answer's value as JSON
	printf '%s\n' "$1" | dpdk-telemetry.py -f "$prefix" 2>/dev/null |
		python3 -c 'import json, sys
for line in sys.stdin:
    line = line.strip()
    if line.startswith("{"):
        print(json.dumps(list(json.loads(line).values())[0]))
        break'
}
tel_check() { # tel_check COMMAND PYTHON-EXPR (v: the value, w: the injected values)
	local v
	v=$(tel "$1")
	echo "$1 -> ${v:0:160}"
	python3 -c '
import json, re, sys
v = json.loads(sys.argv[1])
w = {}
for line in open(sys.argv[3]):
    m = re.match(r"hold: (\S+) packets=(\d+) bytes=(\d+)", line)
    w[m.group(1)] = (int(m.group(2)), int(m.group(3)))
sys.exit(0 if eval(sys.argv[2]) else 1)' "${v:-null}" "$2" "$tmp/injected"
}
if command -v dpdk-telemetry.py >/dev/null; then
	check "telemetry: whole bulk" tel_check /mdevx/share/counter,counters-0 \
		'v["n"] == 128 and sum(v["packets"]) == w["counters-0"][0] and sum(v["bytes"]) == w["counters-0"][1] and v["primary_alive"] == 1 and v["age_ns"] <= ('"$period"' + 100) * 1e6'
	check "telemetry: offset and n" tel_check /mdevx/share/counter,counters-1,31,2 \
		'v["offset"] == 31 and v["n"] == 2 and len(v["packets"]) == 2 and v["packets"][0] > 0 and v["packets"][1] == 0'
	for bad in counters-0,128,1 counters-0,0,129 counters-0,0,300 nope tir-rss "" \
		counters-0,x,1; do
		check "telemetry: bad parameters '$bad' give null" \
			tel_check "/mdevx/share/counter${bad:+,}$bad" 'v is None'
	done
	check "telemetry: service" tel_check /mdevx/share/service \
		'v["period_ms"] == '"$period"' and v["bulks"] == len(w) and v["used"] == 128 * len(w) and v["refreshes"] >= 1 and v["commands"] >= v["refreshes"] and v["state"] == "running"'
	check "telemetry: service of a device" tel_check /mdevx/share/service,rdma:mlx5_0 \
		'v["device"] == "rdma:mlx5_0"'
	check "telemetry: service of an unknown device" tel_check /mdevx/share/service,nope \
		'v is None'
	check "telemetry: records of an unknown device" tel_check /mdevx/share/list,nope \
		'v is None'
	check "telemetry: records of a device" tel_check /mdevx/share/list,rdma:mlx5_0 \
		'set(v) >= set(w)'
	check "telemetry: the secondaries" tel_check /mdevx/share/peers \
		'v["device"] == "rdma:mlx5_0" and v["secondaries"] == len(v["pid"]) == len(v["rules"]) == len(v["attached"]) == len(v["id"])'
	check "telemetry: the secondaries of an unknown device" tel_check /mdevx/share/peers,nope \
		'v is None'
	# One name and one type per figure in telemetry and in --json.
	tel /mdevx/share/service >"$tmp/tel_svc"
	tel /mdevx/share/counter,counters-0 >"$tmp/tel_ctr"
	check "telemetry and --json: the same names and types" python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
tsvc, tctr = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
d = doc["devices"][0]
jsvc = d["service"]
jctr = [r for r in d["records"] if r["name"] == "counters-0"][0]["counters"]
errs = []
for what, t, j, need in (
        ("service", tsvc, jsvc, {"period_ms", "bulks", "capacity", "used", "refreshes",
                                 "failures", "commands", "last_round_ns"}),
        ("counter", tctr, jctr, {"age_ns", "refreshed_ns", "refresh_seq", "primary_alive",
                                 "n", "packets", "bytes"})):
    for k in sorted(need - set(t)):
        errs.append("%s: telemetry has no %s" % (what, k))
    for k in sorted(need - set(j)):
        errs.append("%s: --json has no %s" % (what, k))
    for k in sorted(set(t) & set(j)):
        if type(t[k]) is not type(j[k]):
            errs.append("%s: %s is %s in telemetry, %s in --json"
                        % (what, k, type(t[k]).__name__, type(j[k]).__name__))
for e in errs:
    print("  " + e)
sys.exit(1 if errs else 0)' "$tmp/snap.json" "$tmp/tel_svc" "$tmp/tel_ctr"
else
	echo "FAIL: dpdk-telemetry.py not found (package dpdk)"
	fails=$((fails + 1))
fi

echo "== the demo goes on after the hold"
kill -INT "$primary_pid" 2>/dev/null
wait "$demo_pid"
rc=$?
demo_pid=""
primary_pid=""
check "demo: exit 0 ($rc)" test "$rc" -eq 0
check "demo: demo OK" grep -q "^demo OK" "$tmp/demo"
# The demo's daemon went with it: the tool alone, as with no primary above.
"$tool" --file-prefix="$prefix" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "the primary gone: exit status not 0 ($rc)" test "$rc" -ne 0
check "the primary gone: the message says so" grep -q "no DPDK primary" "$tmp/err"
[ "$fails" -eq 0 ] || tail -30 "$tmp/demo"
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
