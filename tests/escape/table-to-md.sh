#!/bin/sh
# table-to-md.sh TABLE.tsv [--update README.md]
#
# Turn the escape table that tests/escape/run.sh writes
# (build/tests/escape/table.tsv) into Markdown: a summary per column and
# the table itself.  With --update, replace the text between the
# "escape-table" markers of README.md instead of printing.  make check
# regenerates it when LLW_UPDATE_README=1 is set.
set -eu
table=$1
[ -r "$table" ] || { echo "table-to-md.sh: cannot read $table" >&2; exit 2; }

render() {
	awk -F '\t' '
	function cell(s) {
		if (s ~ /^blocked/) return "blocked"
		if (s ~ /^ESCAPED \(known limit/) {
			sub(/^ESCAPED \(known limit, /, "", s); sub(/\)$/, "", s)
			return "**escaped** (known limit, closed by " s ")"
		}
		if (s ~ /^ESCAPED/) return "**ESCAPED**"
		if (s ~ /^skipped \(backend unavailable/) return "n/a"
		# Paths in the test suite scratch directory, its home as ~.
		gsub(/\/[^ ]*\/tests\/run\.[A-Za-z0-9]+\/home/, "~", s)
		gsub(/\/[^ ]*\/tests\/run\.[A-Za-z0-9]+/, "SCRATCH", s)
		return s
	}
	NR == 1 {
		ncol = NF
		for (i = 3; i <= NF; i++) head[i] = $i
		next
	}
	{
		rows[NR] = $0
		for (i = 3; i <= NF; i++) {
			if ($i ~ /^blocked/) blk[i]++
			else if ($i ~ /^ESCAPED \(known/) known[i]++
			else if ($i ~ /^ESCAPED/) esc[i]++
			else if ($i ~ /backend unavailable/) na[i]++
			else skp[i]++
		}
	}
	END {
		n = NR - 1
		printf "%d probes, each next to a legitimate twin that must keep working.\n\n", n
		for (i = 3; i <= ncol; i++) {
			if (na[i] == n) {
				printf "- `%s`: not available in this build (the column fills in once the backend exists)\n", head[i]
				continue
			}
			printf "- `%s`: %d blocked, %d known limits, %d escaped, %d skipped\n", head[i], blk[i], known[i], esc[i], skp[i]
		}
		printf "\n| probe | what it tries |"
		for (i = 3; i <= ncol; i++) printf " %s |", head[i]
		printf "\n|---|---|"
		for (i = 3; i <= ncol; i++) printf "---|"
		printf "\n"
		for (r = 2; r <= NR; r++) {
			split(rows[r], f, "\t")
			printf "| `%s` | %s |", f[1], f[2]
			for (i = 3; i <= ncol; i++) printf " %s |", cell(f[i])
			printf "\n"
		}
	}' "$table"
}

if [ "${2:-}" = --update ]; then
	readme=$3
	tmp=$readme.tmp.$$
	render >"$tmp.table"
	awk -v tbl="$tmp.table" '
		/<!-- escape-table:begin -->/ {
			print
			while ((getline l < tbl) > 0) print l
			skipping = 1
			next
		}
		/<!-- escape-table:end -->/ { skipping = 0 }
		!skipping { print }' "$readme" >"$tmp"
	rm -f "$tmp.table"
	if ! grep -q '<!-- escape-table:end -->' "$tmp"; then
		rm -f "$tmp"
		echo "table-to-md.sh: no escape-table markers in $readme" >&2
		exit 2
	fi
	mv "$tmp" "$readme"
else
	render
fi
