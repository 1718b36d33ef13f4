# Collapse `perf script -F comm,ip,sym` output into folded stacks, root first,
# kernel frames are not marked (the guest tests compare user frames). This
# is the small collapse step of the perf pipeline; Debian packages none.
function flush(   i, s) {
	if (n == 0)
		return
	s = comm
	for (i = n; i >= 1; i--)
		s = s ";" f[i]
	count[s]++
	n = 0
}
/^[^ \t]/ { flush(); comm = $1; next }
/^[ \t]+[0-9a-f]+ / { n++; f[n] = $2; next }
/^$/ { flush() }
END {
	flush()
	for (s in count)
		print s, count[s]
}
