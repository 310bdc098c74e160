#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Mutation testing: make one small single-line edit (a mutant) at a time in
# the named C files, rebuild, run the chosen meson tests, and see whether a
# test notices (KILLED) or not (SURVIVED). A mutant that does not compile is
# STILLBORN and counts neither way. Score: killed / (killed + survived).
#
# usage: mutate.sh [--build-dir DIR] [--suite S]... [--test NAME]... [--max N]
#                  [--lines A-B] [--timeout SEC] [--list] FILE...
#        mutate.sh --diff [--base REF] [same options] [FILE...]
#   --build-dir DIR  build directory (default build-mutate, configured if absent)
#   --suite S        meson test suite to run (default: fast-tests and emu)
#   --test NAME      meson test to run (instead of the default suites)
#   --max N          at most N mutants, evenly spread over the list
#   --lines A-B      only mutate lines A to B
#   --timeout SEC    seconds for one test run (default: 2 x the clean run + 20)
#   --list           list the mutants only; build and run nothing
#   --diff           mutate only the lines this branch changed: the lines
#                    added or changed in the working tree against the merge
#                    base of HEAD and REF (committed or not), in the C files
#                    and headers outside test/ and app/test/ (or the FILEs);
#                    --max defaults to 20; without --suite or --test, the
#                    tests of fast-tests and emu whose build inputs (ninja
#                    -t inputs) include a changed file
#   --base REF       the branch to compare with (default main; implies --diff)
#
# Operators: rel (< <= > >= == !=), bound (right operand of < <= > >=
# plus or minus 1), logic (&& ||), negate (if condition),
# const (0 <-> 1, N+1 and N-1 next to a comparison), plus1 (drop "+ 1" or
# "- 1"), stmt (a call, assignment or ++/-- statement made empty), break.
# Comments, preprocessor lines, string and character literals and
# _Static_assert lines are never mutated.
#
# Each file is backed up first and restored from the backup after every
# mutant, on exit and on interruption; the end checks the checksums. If the
# file changes under the run (someone else edits it), the run stops and
# leaves that edit alone. Only the targets the chosen tests depend on are
# rebuilt (ninja -j1), so a break elsewhere in the tree does not stop the
# run; tests run one at a time. Not part of CI: it is slow.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir="$top/build-mutate"
suites=()
tests=()
max=0
lines=""
timeout_s=""
list_only=0
files=()
diff_mode=0
base=main

usage() {
	sed -n '4,40p' "$0" | sed 's/^# \{0,1\}//'
}

die() {
	echo "mutate: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) [ $# -ge 2 ] || die "$1 needs a value"; build_dir=$2; shift 2 ;;
	--suite) [ $# -ge 2 ] || die "$1 needs a value"; suites+=("$2"); shift 2 ;;
	--test) [ $# -ge 2 ] || die "$1 needs a value"; tests+=("$2"); shift 2 ;;
	--max) [ $# -ge 2 ] || die "$1 needs a value"; max=$2; shift 2 ;;
	--lines) [ $# -ge 2 ] || die "$1 needs a value"; lines=$2; shift 2 ;;
	--timeout) [ $# -ge 2 ] || die "$1 needs a value"; timeout_s=$2; shift 2 ;;
	--list) list_only=1; shift ;;
	--diff) diff_mode=1; shift ;;
	--base) [ $# -ge 2 ] || die "$1 needs a value"; base=$2; diff_mode=1; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; files+=("$@"); break ;;
	-*) usage >&2; die "unknown option: $1" ;;
	*) files+=("$1"); shift ;;
	esac
done
[[ "$max" =~ ^[0-9]+$ ]] || die "--max: not a number: $max"
auto_tests=0
diff_lines=""		# --diff: "file<TAB>line" rows, the lines to mutate
if [ "$diff_mode" -eq 1 ]; then
	mb=$(git -C "$top" merge-base HEAD "$base" 2>/dev/null) ||
		die "--diff: no merge base of HEAD and $base"
	if [ ${#files[@]} -eq 0 ]; then
		mapfile -t files < <(git -C "$top" diff --name-only --diff-filter=AM "$mb" -- \
			'*.c' '*.h' ':!test/' ':!app/test/')
		[ ${#files[@]} -gt 0 ] || die "--diff: no C file changed against $base (${mb:0:12})"
	fi
	for f in "${files[@]}"; do
		[ -f "$top/$f" ] || [ -f "$f" ] || die "no such file: $f"
		case "$f" in /*) f=${f#"$top"/} ;; esac
		# the new side of each hunk: +C,D is lines C..C+D-1 (D 0: a deletion)
		diff_lines+=$(git -C "$top" diff -U0 "$mb" -- "$f" | awk -v f="$f" '
			/^@@ / {
				split($3, a, ",")
				c = substr(a[1], 2) + 0
				d = (2 in a) ? a[2] + 0 : 1
				for (i = 0; i < d; i++)
					printf "%s\t%d\n", f, c + i
			}')
		diff_lines+=$'\n'
	done
	[ -n "${diff_lines//[$'\n']/}" ] || die "--diff: no line added or changed in ${files[*]}"
	[ "$max" -gt 0 ] || max=20
	[ ${#suites[@]} -gt 0 ] || [ ${#tests[@]} -gt 0 ] || auto_tests=1
	echo "== --diff against $base (merge base ${mb:0:12}): ${files[*]}"
fi
[ ${#files[@]} -gt 0 ] || { usage >&2; die "no file named"; }
[ -z "$lines" ] || [[ "$lines" =~ ^[0-9]+-[0-9]+$ ]] || die "--lines: expected A-B: $lines"
[ -z "$timeout_s" ] || [[ "$timeout_s" =~ ^[0-9]+$ ]] || die "--timeout: not a number"
case "$build_dir" in /*) ;; *) build_dir="$top/$build_dir" ;; esac
if [ ${#suites[@]} -eq 0 ] && [ ${#tests[@]} -eq 0 ]; then
	suites=(fast-tests emu)
fi

# The files, as paths relative to the top of the tree.
rel_files=()
for f in "${files[@]}"; do
	[ -f "$f" ] || { [ -f "$top/$f" ] && f="$top/$f"; }
	[ -f "$f" ] || die "no such file: $f"
	abs=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
	case "$abs" in "$top"/*) ;; *) die "not in the tree: $f" ;; esac
	rel_files+=("${abs#"$top"/}")
done

work=$(mktemp -d "${TMPDIR:-/tmp}/mutate.XXXXXX") || die "mktemp failed"
mkdir -p "$work/m" "$work/backup"
trap 'rm -rf "$work"' EXIT
: > "$work/lines.tsv"
[ -z "$diff_lines" ] || printf '%s' "$diff_lines" | grep . > "$work/lines.tsv"

# ---------------------------------------------------------------------------
# Mutant generation: $work/mutants.tsv (id, file, line, operator, what) and
# $work/m/ID.old, ID.new (the line before and after).
python3 - "$top" "$work" "$lines" "$max" "${rel_files[@]}" <<'PYEOF' ||
import os
import re
import sys

top, work, line_range, max_n = sys.argv[1:5]
files = sys.argv[5:]
lo, hi = (int(x) for x in line_range.split('-')) if line_range else (1, 1 << 30)
max_n = int(max_n)
# --diff: only these lines of each file
only = {}
with open(os.path.join(work, 'lines.tsv')) as fp:
	for row in fp:
		f, no = row.rstrip('\n').split('\t')
		only.setdefault(f, set()).add(int(no))
HIDE = '\x01'		# stands for a character of a comment or literal

def code_view(lines):
	"""Each line with comments and literals replaced by HIDE (same length)."""
	out, in_comment = [], False
	for text in lines:
		buf, i, n = [], 0, len(text)
		while i < n:
			if in_comment:
				if text.startswith('*/', i):
					buf += HIDE * 2
					i += 2
					in_comment = False
				else:
					buf.append(HIDE)
					i += 1
			elif text.startswith('/*', i):
				buf += HIDE * 2
				i += 2
				in_comment = True
			elif text.startswith('//', i):
				buf += HIDE * (n - i)
				i = n
			elif text[i] in '"\'':
				q = text[i]
				buf.append(HIDE)
				i += 1
				while i < n and text[i] != q:
					step = 2 if text[i] == '\\' else 1
					buf += HIDE * min(step, n - i)
					i += step
				if i < n:
					buf.append(HIDE)
					i += 1
			else:
				buf.append(text[i])
				i += 1
		out.append(''.join(buf))
	return out

REL = [
	(re.compile(r'(?<![<>=!])==(?!=)'), '=='),
	(re.compile(r'!='), '!='),
	(re.compile(r'(?<!<)<='), '<='),
	(re.compile(r'(?<!>)>='), '>='),
	(re.compile(r'(?<!<)<(?![<=])'), '<'),
	(re.compile(r'(?<![>-])>(?![>=])'), '>'),
]
REL_TO = {'==': ['!='], '!=': ['=='], '<=': ['<'], '>=': ['>'], '<': ['<='], '>': ['>=']}
REL_NEAR = re.compile(r'(==|!=|<=|>=|(?<![<-])<(?!<)|(?<![>-])>(?!>))')
NUM = re.compile(r'(?<![\w.])(\d+)([uUlL]*)(?![\w.])')
PLUS1 = re.compile(r'(?<=[\w)\]])(\s*[+-]\s*1[uUlL]*)(?![\w.])')
IF = re.compile(r'\bif\s*\(')
BREAK = re.compile(r'\bbreak\s*;')
KEYWORD = re.compile(r'^\s*(return|break|continue|goto|case|default|if|for|while|do|'
		     r'else|switch|typedef|static|extern)\b')
DECL = re.compile(r'^\s*((const|volatile|unsigned|signed|struct|enum|union)\s+)*'
		  r'[A-Za-z_]\w*[\s*]+[A-Za-z_]\w*\s*(\[|=|;|,)')
STMT = re.compile(r'^\s*([A-Za-z_][\w.\->\[\]]*\s*\(|'
		  r'[^=;]*?(?<![=!<>])([-+*/%&|^]|<<|>>)?=(?!=)|'
		  r'.*(\+\+|--)\s*;\s*$|\s*(\+\+|--))')
HEADER = re.compile(r'^\s*(\}\s*)?(if|for|while|else)\b')

def balanced(s):
	d = 0
	for ch in s:
		d += ch == '('
		d -= ch == ')'
		if d < 0:
			return False
	return d == 0

def rhs_end(code, i):
	"""End of the right operand of a relational operator from i; None if unsure."""
	d = 0
	while i < len(code):
		c = code[i]
		if c in '([':
			d += 1
		elif c in ')]':
			if d == 0:
				return i
			d -= 1
		elif d == 0:
			two = code[i:i + 2]
			if two in ('<<', '>>'):
				return None	# '+ 1' would bind inside the shift
			if two == '->':
				i += 2
				continue
			if c in '<>=!&|^?:,;}':
				return i
		i += 1
	return i

def empty_stmt(prev_code):
	# an empty ';' after a brace-less if/for/while/else draws -Wempty-body
	return '(void)0;' if HEADER.match(prev_code) else ';'

def mutants_of(code, prev_code):
	"""(operator, description, start, end, replacement) for one code line."""
	res = []
	for rx, op in REL:
		for m in rx.finditer(code):
			for to in REL_TO[op]:
				res.append(('rel', '%s -> %s' % (op, to), m.start(), m.end(), to))
	for rx, op in REL[2:]:
		for m in rx.finditer(code):
			end = rhs_end(code, m.end())
			rhs = code[m.end():end]
			if (end is None or not rhs.strip() or HIDE in rhs
			    or re.fullmatch(r'\s*\d+[uUlL]*\s*', rhs)
			    or rhs.rstrip()[-1] in '+-*/%&|^<>=!(,'):
				continue
			tail = len(rhs.rstrip())
			for d in ('+ 1', '- 1'):
				res.append(('bound', '%s rhs %s' % (op, d), m.end() + tail,
					    m.end() + tail, ' ' + d))
	for m in re.finditer(r'&&|\|\|', code):
		to = '||' if m.group() == '&&' else '&&'
		res.append(('logic', '%s -> %s' % (m.group(), to), m.start(), m.end(), to))
	for m in IF.finditer(code):
		d, j = 1, m.end()
		while j < len(code) and d > 0:
			d += code[j] == '('
			d -= code[j] == ')'
			j += 1
		if d == 0:
			inner = code[m.end():j - 1]
			if HIDE not in inner:
				res.append(('negate', 'if (c) -> if (!(c))', m.end(), j - 1,
					    '!(' + inner + ')'))
	for m in NUM.finditer(code):
		digits, suffix = m.group(1), m.group(2)
		if len(digits) > 1 and digits[0] == '0':
			continue	# octal
		v = int(digits)
		before = code[:m.start()].rstrip()
		after = code[m.end():].lstrip()
		near = bool(REL_NEAR.search(before[-2:])) or bool(REL_NEAR.match(after[:2]))
		tos = []
		if v in (0, 1):
			tos.append(1 - v)
		if near and v >= 1:
			tos += [v + 1] + ([v - 1] if v >= 2 else [])
		elif near and v == 0:
			pass
		for to in dict.fromkeys(tos):
			res.append(('const', '%d -> %d' % (v, to), m.start(1), m.end(),
				    '%d%s' % (to, suffix)))
	for m in PLUS1.finditer(code):
		res.append(('plus1', 'drop "%s"' % m.group(1).strip(), m.start(1), m.end(1), ''))
	for m in BREAK.finditer(code):
		res.append(('break', 'break -> ;', m.start(), m.end(), empty_stmt(prev_code)))
	plain = code.replace(HIDE, ' ')
	s = plain.strip()
	if (s.endswith(';') and balanced(s) and not KEYWORD.match(plain)
	    and not DECL.match(plain) and STMT.match(plain)
	    and (prev_code.rstrip().endswith((';', '{', '}', ':', ')'))
		 or HEADER.match(prev_code))):
		ind = len(plain) - len(plain.lstrip())
		res.append(('stmt', 'statement -> ;', ind, len(plain.rstrip()),
			    empty_stmt(prev_code)))
	return res

rows = []
for rel in files:
	with open(os.path.join(top, rel), encoding='utf-8', errors='surrogateescape') as fp:
		text = fp.read().split('\n')
	view = code_view(text)
	prev_code, continued = '', False
	for no, (orig, code) in enumerate(zip(text, view), 1):
		directive = continued or code.lstrip().startswith('#')
		continued = directive and orig.rstrip().endswith('\\')
		if directive or not code.strip(HIDE + ' \t'):
			continue
		if re.search(r'\b(_Static_assert|static_assert)\b', code):
			prev_code = code
			continue
		if lo <= no <= hi and (not only or no in only.get(rel, ())):
			seen = set()
			for op, what, a, b, to in mutants_of(code, prev_code):
				new = orig[:a] + to + orig[b:]
				if new == orig or new in seen:
					continue
				seen.add(new)
				rows.append((rel, no, op, what, orig, new))
		prev_code = code.replace(HIDE, ' ')

total = len(rows)
if max_n and total > max_n:
	rows = [rows[i * total // max_n] for i in range(max_n)]
with open(os.path.join(work, 'mutants.tsv'), 'w') as tsv:
	for i, (rel, no, op, what, orig, new) in enumerate(rows, 1):
		tsv.write('%d\t%s\t%d\t%s\t%s\n' % (i, rel, no, op, what))
		for ext, line in (('old', orig), ('new', new)):
			with open(os.path.join(work, 'm', '%d.%s' % (i, ext)), 'w',
				  encoding='utf-8', errors='surrogateescape') as fp:
				fp.write(line + '\n')
print('%d mutants%s' % (len(rows), ' (%d sampled of %d)' % (len(rows), total)
			 if len(rows) != total else ''))
PYEOF
	die "mutant generation failed"

nmut=$(wc -l < "$work/mutants.tsv")

if [ "$list_only" -eq 1 ]; then
	while IFS=$'\t' read -r id file line op what; do
		printf '%4d %s:%s %s (%s): %s\n' "$id" "$file" "$line" "$op" "$what" \
			"$(sed 's/^[[:space:]]*//' "$work/m/$id.new")"
	done < "$work/mutants.tsv"
	rm -rf "$work"
	exit 0
fi
[ "$nmut" -gt 0 ] || { rm -rf "$work"; die "no mutant in the named lines"; }

# ---------------------------------------------------------------------------
# Backups, and the restore that always runs.
declare -A backup orig_sum
sum() { sha256sum "$1" | cut -d' ' -f1; }
i=0
for f in "${rel_files[@]}"; do
	i=$((i + 1))
	backup[$f]="$work/backup/$i.$(basename "$f")"
	cp -p "$top/$f" "${backup[$f]}" || die "cannot back up $f"
	orig_sum[$f]=$(sum "${backup[$f]}")
done
applied=""		# the file holding a mutant right now, if any
applied_sum=""

restore_file() { # file
	cat "${backup[$1]}" > "$top/$1"
}

restore_all() {
	local f rc=0
	if [ -n "$applied" ]; then
		restore_file "$applied"
		applied=""
	fi
	for f in "${rel_files[@]}"; do
		if [ "$(sum "$top/$f")" != "${orig_sum[$f]}" ]; then
			echo "mutate: ERROR: $f differs from its backup ${backup[$f]}" >&2
			rc=1
		fi
	done
	return $rc
}

on_exit() {
	if restore_all; then
		rm -rf "$work"
	else
		echo "mutate: backups kept in $work" >&2
	fi
}
# Builds and test runs go in the background, so that a signal is handled
# at once (bash runs a trap only after a foreground command ends); fd 4 is
# the script's own stderr, for the handler to write to while the output of
# a build or test run is redirected.
exec 4>&2
child=""
run() { # command...
	"$@" 4>&- &
	child=$!
	wait "$child"
	local rc=$?
	child=""
	return $rc
}

on_signal() {
	echo "mutate: interrupted; restoring the files" >&4
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null
		wait "$child" 2>/dev/null
	fi
	exit 130
}
trap on_exit EXIT
trap on_signal INT TERM HUP

# ---------------------------------------------------------------------------
# The tests to run and the targets they need.
if [ ! -f "$build_dir/build.ninja" ]; then
	echo "== configuring $build_dir"
	meson setup "$build_dir" "$top" > "$work/setup.log" 2>&1 ||
		{ cat "$work/setup.log" >&2; die "meson setup failed"; }
fi
if ! meson introspect "$build_dir" --tests > "$work/tests.json" ||
   ! meson introspect "$build_dir" --targets > "$work/targets.json"; then
	die "meson introspect failed"
fi
# $work/names: the chosen tests; $work/targets: what they need built.
MUTATE_TOP=$top python3 - "$build_dir" "$work" "$auto_tests" "${#suites[@]}" "${suites[@]}" "${tests[@]}" \
	<<'PYEOF' ||
import json
import os
import subprocess
import sys

build, work, auto, ns = sys.argv[1], sys.argv[2], sys.argv[3] == '1', int(sys.argv[4])
suites, names = sys.argv[5:5 + ns], sys.argv[5 + ns:]
tests = json.load(open(os.path.join(work, 'tests.json')))
targets = {t['id']: t for t in json.load(open(os.path.join(work, 'targets.json')))}

def in_suite(t):
	return any(s.split(':')[-1] == want for s in t['suite'] for want in suites)

chosen = [t for t in tests if (not names or t['name'] in names) and (not suites or in_suite(t))]
if auto:
	# --diff without a test named: the tests whose build inputs hold a changed file
	with open(os.path.join(work, 'lines.tsv')) as fp:
		changed = {l.split('\t')[0] for l in fp}
	cache = {}

	def inputs(fn):
		if fn not in cache:
			r = subprocess.run(['ninja', '-C', build, '-t', 'inputs', fn],
					   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
					   text=True)
			cache[fn] = {os.path.realpath(os.path.join(build, x))
				     for x in r.stdout.split()}
		return cache[fn]
	src_top = os.environ['MUTATE_TOP']
	want = {os.path.realpath(os.path.join(src_top, f)) for f in changed}
	# a header is no build input: the objects whose recorded deps hold it are
	r = subprocess.run(['ninja', '-C', build, '-t', 'deps'], stdout=subprocess.PIPE,
			   stderr=subprocess.DEVNULL, text=True)
	obj = None
	for line in r.stdout.splitlines():
		if line and not line[0].isspace():
			obj = line.split(':')[0]
		elif obj is not None and line.strip():
			dep = os.path.realpath(os.path.join(build, line.strip()))
			if dep in want:
				want.add(os.path.realpath(os.path.join(build, obj)))
	ranked = []
	for t in chosen:
		ins = set()
		for dep in t['depends']:
			for fn in targets.get(dep, {}).get('filename', []):
				ins |= inputs(os.path.relpath(fn, build))
		if ins & want:
			ranked.append((len(ins), t['name'], t))
	chosen = [t for _, _, t in sorted(ranked, key=lambda r: (r[0], r[1]))]
	print('tests covering the changed files: ' +
	      ' '.join(t['name'] for t in chosen), file=sys.stderr)
if not chosen:
	sys.exit(1)
out = set()
os.makedirs(os.path.join(work, 'deps'), exist_ok=True)
for t in chosen:
	mine = set()
	for dep in t['depends']:
		for fn in targets.get(dep, {}).get('filename', []):
			mine.add(os.path.relpath(fn, build))
	with open(os.path.join(work, 'deps', t['name']), 'w') as fp:
		fp.write(''.join(fn + '\n' for fn in sorted(mine)))
	out |= mine
with open(os.path.join(work, 'names'), 'w') as fp:
	fp.write(''.join(t['name'] + '\n' for t in chosen))
with open(os.path.join(work, 'targets'), 'w') as fp:
	fp.write(''.join(fn + '\n' for fn in sorted(out)))
PYEOF
	die "no test selected by: ${suites[*]} ${tests[*]}$([ "$auto_tests" -eq 0 ] ||
		echo "(--diff: no test of fast-tests or emu builds a changed file)")"
mapfile -t names < "$work/names"
mapfile -t targets < "$work/targets"

build() { # log
	run ninja -C "$build_dir" -j1 "${targets[@]}" > "$1" 2>&1
}

echo "== clean run: ${#names[@]} tests, ${#targets[@]} targets"
if ! build "$work/build.log"; then
	# Someone else's work in progress: leave out the tests whose targets
	# do not build without a mutant.
	kept=() broken=()
	for t in "${names[@]}"; do
		mapfile -t deps < "$work/deps/$t"
		if run ninja -C "$build_dir" -j1 "${deps[@]}" > "$work/build.log" 2>&1; then
			kept+=("$t")
		else
			broken+=("$t")
		fi
	done
	[ ${#kept[@]} -gt 0 ] || { tail -n 30 "$work/build.log" >&2;
		die "the build fails without any mutant (is the tree broken?)"; }
	echo "!! left out, not building without any mutant: ${broken[*]}"
	names=("${kept[@]}")
	mapfile -t targets < <(cd "$work/deps" && sort -u "${names[@]}")
fi
t0=$(date +%s)
if ! run meson test -C "$build_dir" --no-rebuild --num-processes 1 "${names[@]}" \
	> "$work/test.log" 2>&1; then
	# Tests that fail without a mutant (others' work in progress) cannot
	# tell anything: leave them out and say so.
	mapfile -t failing < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["result"] not in ("OK", "SKIP", "EXPECTEDFAIL"):
        print(r["name"].split(" / ")[-1])' "$build_dir/meson-logs/testlog.json")
	[ ${#failing[@]} -gt 0 ] || { tail -n 30 "$work/test.log" >&2;
		die "the tests fail without any mutant"; }
	echo "!! left out, failing without any mutant: ${failing[*]}"
	# Their output, for whoever reads the run's log: the later runs
	# overwrite meson's.
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["result"] not in ("OK", "SKIP", "EXPECTEDFAIL"):
        out = (r.get("stdout") or "").splitlines()[-15:]
        print("!!   %s (%s):" % (r["name"].split(" / ")[-1], r["result"]))
        for l in out:
            print("!!     " + l)' "$build_dir/meson-logs/testlog.json"
	mapfile -t names < <(printf '%s\n' "${names[@]}" | grep -vxF -f <(printf '%s\n' "${failing[@]}"))
	[ ${#names[@]} -gt 0 ] || die "every chosen test fails without any mutant"
	t0=$(date +%s)
	run meson test -C "$build_dir" --no-rebuild --num-processes 1 "${names[@]}" \
		> "$work/test.log" 2>&1 || { tail -n 30 "$work/test.log" >&2;
		die "the tests fail without any mutant"; }
fi
clean_s=$(( $(date +%s) - t0 ))
[ -n "$timeout_s" ] || timeout_s=$((2 * clean_s + 20))
# a mutant's run stops at its first failing test
mtest=(meson test -C "$build_dir" --no-rebuild --num-processes 1 --maxfail 1 "${names[@]}")
echo "== clean run: ${clean_s} s (${names[*]}); timeout per mutant ${timeout_s} s; $nmut mutants"

# ---------------------------------------------------------------------------
killed=0 survived=0 stillborn=0 unbuilt=0
: > "$work/survivors"
while IFS=$'\t' read -r id file line op what <&3; do
	if [ "$(sum "$top/$file")" != "${orig_sum[$file]}" ]; then
		echo "mutate: $file was changed by someone else during the run; stopping" >&2
		# that edit is theirs: keep it and do not restore over it
		orig_sum[$file]=$(sum "$top/$file")
		cp -p "$top/$file" "${backup[$file]}"
		break
	fi
	t0=$(date +%s)
	awk -v n="$line" -v f="$work/m/$id.new" \
		'NR == n { while ((getline l < f) > 0) print l; next } { print }' \
		"${backup[$file]}" > "$work/mutant"
	# a final line without a newline keeps it
	if [ -n "$(tail -c 1 "${backup[$file]}")" ]; then
		truncate -s -1 "$work/mutant"
	fi
	applied=$file
	cat "$work/mutant" > "$top/$file"
	applied_sum=$(sum "$top/$file")
	detail=""
	if ! build "$work/build.log"; then
		restore_file "$file"
		applied=""
		if grep -q "$(basename "$file").*error" "$work/build.log" ||
		   build "$work/build2.log"; then
			result=STILLBORN
			stillborn=$((stillborn + 1))
			detail=$(sed 's/\x1b\[[0-9;]*[mK]//g' "$work/build.log" |
				 grep -m 1 -o 'error: .*' | cut -c 1-60)
		else
			tail -n 30 "$work/build2.log" >&2
			echo "mutate: the build fails without the mutant too; stopping" >&2
			break
		fi
	elif grep -q '^ninja: no work to do' "$work/build.log"; then
		result=UNBUILT
		unbuilt=$((unbuilt + 1))
	else
		run timeout -k 10 "$timeout_s" "${mtest[@]}" > "$work/test.log" 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then
			result=SURVIVED
			survived=$((survived + 1))
			printf '%s:%s %s (%s)\n  - %s\n  + %s\n' "$file" "$line" "$op" "$what" \
				"$(sed 's/^[[:space:]]*//' "$work/m/$id.old")" \
				"$(sed 's/^[[:space:]]*//' "$work/m/$id.new")" >> "$work/survivors"
		else
			result=KILLED
			killed=$((killed + 1))
			if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
				detail="timeout"
			else
				detail=$(grep -E ' (FAIL|TIMEOUT) ' "$work/test.log" | head -n 1 |
					 sed -E 's/.* \/ ([^ ]+) +.*/\1/')
			fi
		fi
	fi
	if [ -n "$applied" ]; then
		[ "$(sum "$top/$file")" = "$applied_sum" ] || {
			cp "$top/$file" "$work/foreign.$id.$(basename "$file")"
			echo "mutate: $file changed during mutant $id; the change is in" \
			     "$work/foreign.$id.$(basename "$file")" >&2; }
		restore_file "$file"
		applied=""
	fi
	printf '[%*d/%d] %s:%s %-6s %-22s %-9s %3ds %s\n' ${#nmut} "$id" "$nmut" "$file" \
		"$line" "$op" "($what)" "$result" $(( $(date +%s) - t0 )) "$detail"
done 3< "$work/mutants.tsv"

# Leave the build directory built from the original files, and check that
# the tests still pass without a mutant (a test edited during the pass, or a
# change elsewhere, would make the results above unreliable).
restore_all || exit 1
if ! build "$work/build.log"; then
	echo "!! the final rebuild without a mutant failed: the results may be unreliable"
elif ! run meson test -C "$build_dir" --no-rebuild --num-processes 1 "${names[@]}" \
	> "$work/test.log" 2>&1; then
	echo "!! the tests fail without a mutant at the end: the results are unreliable"
fi

echo
if [ -s "$work/survivors" ]; then
	echo "== survivors"
	cat "$work/survivors"
fi
echo "== killed $killed, survived $survived, stillborn $stillborn, not built $unbuilt"
if [ $((killed + survived)) -gt 0 ]; then
	awk -v k=$killed -v s=$survived \
		'BEGIN { printf "score: %d/%d (%.1f%%)\n", k, k + s, 100 * k / (k + s) }'
fi
