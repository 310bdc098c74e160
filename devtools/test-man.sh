#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
# Check the man pages built from doc/man/*.md against the public API:
#  (a) every page renders with man(1) without a warning, by file and by
#      name through a man tree (so "man <function>" works, aliases too);
#  (b) every page has its sections in order (man3: NAME, SYNOPSIS,
#      DESCRIPTION, ARGUMENTS, RETURN VALUE, ERRORS, NOTES, SEE ALSO), a
#      NAME line whatis can read, and names only functions of its SYNOPSIS;
#  (c) every function the libraries export and a public header declares
#      has a man3 page or alias, every man3 page names such a function,
#      and every alias links to the page whose NAME lists it;
#  (d) every option a program's --help shows is in its man1 page.
#
# usage: test-man.sh [--man-dir DIR] [--marked-header H]... [--header H]...
#                    [--lib LIB.so]... [PAGE]...
#   PAGE             a built page (NAME.1, NAME.3, NAME.7; an alias is a
#                    ".so" page)
#   --man-dir        every page in DIR
#   --marked-header  public functions: the declarations marked MDEVX_API
#   --header         public functions: every function declaration
#   --lib            a library whose exported mdevx_* / swdev_* functions
#                    are the API (nm -D); exported functions no public
#                    header declares (tests, internal) are listed, not checked
#   --program        an installed program, documented in <its name>.1
set -u
export LC_ALL=C.UTF-8

usage() {
	sed -n '4,25p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
}

man_dir=""
pages=()
marked=()
plain=()
libs=()
progs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--man-dir) man_dir=${2:-}; shift 2 || usage ;;
	--marked-header) marked+=("${2:-}"); shift 2 || usage ;;
	--header) plain+=("${2:-}"); shift 2 || usage ;;
	--lib) libs+=("${2:-}"); shift 2 || usage ;;
	--program) progs+=("${2:-}"); shift 2 || usage ;;
	-h|--help) usage ;;
	-*) echo "unknown option: $1" >&2; usage ;;
	*) pages+=("$1"); shift ;;
	esac
done
if [ -n "$man_dir" ]; then
	for f in "$man_dir"/*.[137]; do
		[ -f "$f" ] && pages+=("$f")
	done
fi

fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

for tool in man lexgrog nm cc; do
	if ! command -v "$tool" >/dev/null; then
		echo "FAIL: $tool not found (man-db, binutils, gcc)"
		exit 1
	fi
done

tmp=$(mktemp -d /tmp/test-man.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
tree="$tmp/man"

# A man tree of the built pages, as installed (share/man/manN).
npages=0
for f in "${pages[@]}"; do
	if [ ! -f "$f" ]; then
		fail "no page $f"
		continue
	fi
	sect=${f##*.}
	mkdir -p "$tree/man$sect"
	ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$tree/man$sect/"
	npages=$((npages + 1))
done
if [ "$npages" -eq 0 ] || [ ! -d "$tree/man3" ]; then
	echo "FAIL: no man pages (was pandoc found when meson configured the build?" \
	     "apt-get install pandoc, then reconfigure)"
	exit 1
fi

is_alias() {
	head -n 1 "$1" | grep -q '^\.so '
}

# The target "manN/page.N" of an alias page.
alias_target() {
	sed -n '1s/^\.so[[:space:]]*//p' "$1"
}

# Section titles of a generated page, one a line.
sections() {
	sed -n 's/^\.SH[[:space:]]*//p' "$1" | sed 's/^"\(.*\)"$/\1/'
}

# The NAME paragraph of a generated page, joined to one line.
name_line() {
	awk '/^\.SH/ { in_name = ($0 ~ /^\.SH "?NAME"?$/); next }
	     in_name && !/^\./ { printf "%s ", $0 }' "$1" | sed 's/[[:space:]]*$//'
}

# The names of a NAME line ("a, b, c \- what they do").
names_of() {
	name_line "$1" | sed 's/[[:space:]]\{1,\}\\\{0,1\}-[[:space:]].*//' | tr ',' '\n' |
		sed 's/^[[:space:]]*//; s/[[:space:]]*$//' | grep -v '^$'
}

# The SYNOPSIS text of a generated page.
synopsis() {
	awk '/^\.SH/ { in_syn = ($0 ~ /^\.SH "?SYNOPSIS"?$/); next } in_syn' "$1"
}

# Is list $2 a subsequence of the lines of file $1 (in order)?
in_order() {
	local want=$2 got
	got=$(tr '\n' '|' < "$1")
	awk -v got="$got" -v want="$want" 'BEGIN {
		n = split(got, g, "|"); m = split(want, w, "|"); j = 1
		for (i = 1; i <= n && j <= m; i++)
			if (g[i] == w[j])
				j++
		exit j <= m
	}'
}

# The sections a page of section $1 has, in this order (others may come
# between them).
required_sections() {
	case "$1" in
	3) echo "NAME|SYNOPSIS|DESCRIPTION|ARGUMENTS|RETURN VALUE|ERRORS|NOTES|SEE ALSO" ;;
	7) echo "NAME|DESCRIPTION|SEE ALSO" ;;
	1) echo "NAME|SYNOPSIS|DESCRIPTION|OPTIONS|EXIT STATUS|SEE ALSO" ;;
	esac
}

# ---- (a) rendering, (b) sections, NAME and SYNOPSIS ----
nreal=0
nalias=0
for f in "$tree"/man*/*; do
	sect=${f##*.}
	base=$(basename "$f" ".$sect")
	if is_alias "$f"; then
		nalias=$((nalias + 1))
		target=$(alias_target "$f")
		if [ ! -f "$tree/$target" ] || is_alias "$tree/$target"; then
			fail "$base($sect): alias of $target, which is not a page"
		elif ! names_of "$tree/$target" | grep -qx -- "$base"; then
			fail "$base($sect): alias of $target, whose NAME does not list $base"
		fi
		continue
	fi
	nreal=$((nreal + 1))
	# By file, as man -l shows a page; every warning of groff counts.
	MANWIDTH=80 man --warnings=w -l "$f" > "$tmp/out" 2> "$tmp/err"
	if [ -s "$tmp/err" ]; then
		fail "$base($sect): man -l warns:"
		sed 's/^/    /' "$tmp/err"
	elif [ ! -s "$tmp/out" ]; then
		fail "$base($sect): man -l renders nothing"
	fi
	sections "$f" > "$tmp/sections"
	want=$(required_sections "$sect")
	if ! in_order "$tmp/sections" "$want"; then
		fail "$base($sect): sections $(tr '\n' '|' < "$tmp/sections" | sed 's/|$//')" \
		     "do not include $want in this order"
	fi
	if ! lexgrog "$f" > /dev/null 2>&1; then
		fail "$base($sect): lexgrog (whatis, apropos) cannot read its NAME section"
	fi
	names_of "$f" > "$tmp/names"
	if ! grep -qx -- "$base" "$tmp/names"; then
		fail "$base($sect): NAME does not list $base"
	fi
	if [ "$sect" = 3 ]; then
		synopsis "$f" > "$tmp/synopsis"
		while read -r n; do
			grep -Eq "(^|[^A-Za-z0-9_])$n\(" "$tmp/synopsis" ||
				fail "$base(3): $n is in NAME but not declared in SYNOPSIS"
		done < "$tmp/names"
	fi
done

# Every name of every page by name, as a user types it (aliases resolve).
nnames=0
for f in "$tree"/man*/*; do
	sect=${f##*.}
	base=$(basename "$f" ".$sect")
	nnames=$((nnames + 1))
	MANWIDTH=80 man --warnings=w -M "$tree" "$sect" "$base" > "$tmp/out" 2> "$tmp/err"
	if [ -s "$tmp/err" ] || [ ! -s "$tmp/out" ]; then
		fail "man -M <tree> $sect $base: $(head -n 3 "$tmp/err" | tr '\n' ' ')"
	elif ! grep -q -- "$base" "$tmp/out"; then
		fail "man $sect $base: the page shown does not name $base"
	fi
done

# The overview's SEE ALSO names every man3 page.
for f in "$tree"/man7/*; do
	[ -f "$f" ] || continue
	is_alias "$f" && continue
	awk '/^\.SH/ { in_see = ($0 ~ /^\.SH "?SEE ALSO"?$/); next } in_see' "$f" \
		> "$tmp/seealso"
	for p in "$tree"/man3/*.3; do
		is_alias "$p" && continue
		grep -q "$(basename "$p" .3)" "$tmp/seealso" ||
			fail "$(basename "$f"): SEE ALSO does not name $(basename "$p")"
	done
done

# ---- (c) the API against the pages ----
# Public functions: declarations of the headers, comments removed.
decls() {
	cc -fpreprocessed -dD -E -P "$1" 2> /dev/null | grep -v '^[[:space:]]*#' |
		tr '\n' ' ' | tr ';' '\n' | sed 's/.*[{}]//'
}
: > "$tmp/public"
for h in "${marked[@]}"; do
	[ -f "$h" ] || { fail "no header $h"; continue; }
	decls "$h" | sed -n 's/^[[:space:]]*MDEVX_API[^(]*[^(A-Za-z0-9_]\([a-z][a-z0-9_]*\)[[:space:]]*(.*/\1/p' \
		>> "$tmp/public"
done
for h in "${plain[@]}"; do
	[ -f "$h" ] || { fail "no header $h"; continue; }
	decls "$h" |
		sed -n 's/^[[:space:]]*[A-Za-z_][A-Za-z0-9_ *]*[ *]\([a-z][a-z0-9_]*\)[[:space:]]*(.*/\1/p' \
		>> "$tmp/public"
done
sort -u -o "$tmp/public" "$tmp/public"

: > "$tmp/exported"
for lib in "${libs[@]}"; do
	if [ ! -f "$lib" ]; then
		fail "no library $lib"
		continue
	fi
	nm -D --defined-only "$lib" |
		awk '$2 ~ /^[TWi]$/ { sub(/@.*/, "", $3); print $3 }' |
		grep -E '^(mdevx|swdev)_' >> "$tmp/exported"
done
sort -u -o "$tmp/exported" "$tmp/exported"

comm -12 "$tmp/exported" "$tmp/public" > "$tmp/api"
comm -23 "$tmp/exported" "$tmp/public" > "$tmp/internal"
comm -13 "$tmp/exported" "$tmp/public" > "$tmp/unexported"
for f in "$tree"/man3/*.3; do
	basename "$f" .3
done | sort -u > "$tmp/man3"

while read -r s; do
	fail "$s: exported and declared public, but no man page (add doc/man/$s.3.md" \
	     "or an alias in doc/man/meson.build)"
done < <(comm -23 "$tmp/api" "$tmp/man3")
while read -r s; do
	fail "$s(3): a page for a function that no public header declares"
done < <(comm -23 "$tmp/man3" "$tmp/public")
while read -r s; do
	fail "$s: declared in a public header, but no library exports it"
done < "$tmp/unexported"

# ---- (d) the programs' options ----
for prog in "${progs[@]}"; do
	name=$(basename "$prog")
	page="$tree/man1/$name.1"
	if [ ! -f "$page" ]; then
		fail "$name: no man1 page"
		continue
	fi
	# One line per paragraph: no option is cut at a hyphen.
	MANWIDTH=1000 man -l "$page" 2> /dev/null > "$tmp/page1"
	"$prog" --help > "$tmp/help" 2>&1
	grep -o -- '--[a-z][a-z0-9-]*' "$tmp/help" | sort -u > "$tmp/opts"
	if [ ! -s "$tmp/opts" ]; then
		fail "$name --help shows no option"
		continue
	fi
	while read -r o; do
		grep -q -- "$o\([^a-z0-9-]\|$\)" "$tmp/page1" ||
			fail "$name(1): $o of --help is not in the page"
	done < "$tmp/opts"
done

echo "pages: $nreal, aliases: $nalias, names looked up: $nnames, programs: ${#progs[@]}"
echo "public functions: $(wc -l < "$tmp/api") exported, every one with a page unless listed above"
if [ -s "$tmp/internal" ]; then
	echo "not checked (exported, not declared public: internal or test):" \
	     "$(wc -l < "$tmp/internal")"
	paste -sd ' ' "$tmp/internal" | fold -s -w 96 | sed 's/^/    /'
fi
if [ "$fails" -ne 0 ]; then
	echo "test-man: $fails failure(s)"
	exit 1
fi
echo "test-man: OK"
