# Statistics for the bench scripts (guest-bench, guest-bench-user,
# guest-bench-whole, guest-fgraph and fgraph.sh, guest-bystander): source
# it. One place says what a median, a spread and "within noise" are, so
# every table judges its rounds the same way.
# A list is numbers separated by blanks or newlines (empty fields are
# ignored); the summaries read it on stdin, the verdicts take lists as
# arguments.

# The list on stdin, one number a line, in numeric order (sort -g: also
# negative, exponent and nan values, which user space's timings can be).
stats_sorted() { tr ' ' '\n' | grep . | sort -g; }

# The middle value (of an even count, the lower of the two middle ones).
median() { stats_sorted | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# The value 99% of the list are at or below (the rank rounded up).
p99() {
	stats_sorted | awk '{v[NR] = $1} END {p = int(0.99 * NR + 0.999); if (p < 1) p = 1; print v[p]}'
}
# "MIN MAX".
range() { stats_sorted | awk 'NR == 1 {a = $1} {b = $1} END {print a, b}'; }
# spread [FMT]: "MIN-MAX", each printed with printf's FMT (default %.2f).
spread() {
	stats_sorted | awk -v f="${1:-%.2f}" 'NR == 1 {a = $1} {b = $1} END {printf f "-" f, a, b}'
}
# summary DIGITS UNIT LIST: "MEDIAN UNIT (MIN-MAX)", DIGITS decimals each.
summary() {
	local m a b
	m=$(echo "$3" | median)
	read -r a b <<<"$(echo "$3" | range)"
	awk -v m="$m" -v a="$a" -v b="$b" -v d="$1" -v u="$2" \
		'BEGIN {printf "%.*f %s (%.*f-%.*f)", d, m, u, d, a, d, b}'
}

# The verdicts. Rounds under TCG vary more than most differences between
# tools: a difference is a finding only where the rounds do not overlap.

# overlap A B: true when the ranges of lists A and B overlap (their
# difference is within noise).
overlap() {
	local a0 a1 b0 b1
	read -r a0 a1 <<<"$(echo "$1" | range)"
	read -r b0 b1 <<<"$(echo "$2" | range)"
	awk -v a0="$a0" -v a1="$a1" -v b0="$b0" -v b1="$b1" 'BEGIN {exit !(a0 <= b1 && b0 <= a1)}'
}
# ratio_or_noise FMT A B: "within noise" when overlap A B, else A's median
# over B's with printf's FMT ("n/a" when B's median is not above 0).
ratio_or_noise() {
	if overlap "$2" "$3"; then
		echo "within noise"
		return
	fi
	awk -v f="$1" -v a="$(echo "$2" | median)" -v b="$(echo "$3" | median)" \
		'BEGIN {if (b > 0) printf f, a / b; else printf "n/a"}'
}
# compare NAME_A A NAME_B B: of two costs, "B/A N.Nx" (the medians' ratio)
# when A's range is below B's, "A/B N.Nx" the other way, else "within
# noise". A cost whose range reaches 0 has no ratio, only a bound from the
# top of its range; one entirely at or below 0 against one above, none.
compare() {
	local a0 a1 b0 b1
	read -r a0 a1 <<<"$(echo "$2" | range)"
	read -r b0 b1 <<<"$(echo "$4" | range)"
	awk -v na="$1" -v nb="$3" -v a0="$a0" -v a1="$a1" -v b0="$b0" -v b1="$b1" \
		-v am="$(echo "$2" | median)" -v bm="$(echo "$4" | median)" 'BEGIN {
		if (a1 <= 0 && b0 > 0 || b1 <= 0 && a0 > 0)
			printf "%s within noise of 0: no ratio", a1 <= 0 ? na : nb
		else if (a1 < b0 && a0 <= 0)
			printf "%s within noise of 0: %s/%s at least %.1fx (from its top, %.2f)", na, nb, na, bm / a1, a1
		else if (a1 < b0)
			printf "%s/%s %.1fx", nb, na, bm / am
		else if (b1 < a0 && b0 <= 0)
			printf "%s within noise of 0: %s/%s at least %.1fx (from its top, %.2f)", nb, na, nb, am / b1, b1
		else if (b1 < a0)
			printf "%s/%s %.1fx", na, nb, am / bm
		else
			printf "within noise" }'
}
# gap_within_spreads A B: true when A's and B's medians differ by no more
# than the wider of their ranges (MAX - MIN): for counts, such as
# interrupts per second, where a rise is judged against a baseline's.
gap_within_spreads() {
	local a0 a1 b0 b1
	read -r a0 a1 <<<"$(echo "$1" | range)"
	read -r b0 b1 <<<"$(echo "$2" | range)"
	awk -v a0="$a0" -v a1="$a1" -v b0="$b0" -v b1="$b1" \
		-v am="$(echo "$1" | median)" -v bm="$(echo "$2" | median)" 'BEGIN {
		d = am - bm; if (d < 0) d = -d
		w = a1 - a0; if (b1 - b0 > w) w = b1 - b0
		exit !(d <= w) }'
}
