<?php
// A known call tree for t_vm_php.sh: php8.2 known82.php SECONDS.
// {main} -> run -> heavy (PHP only), and run -> sorter -> usort (C) ->
// cmp (PHP, called back by C) -> light: C between PHP frames; sorter ->
// preg_replace_callback (C, PCRE) -> repl (PHP) -> light, the same again
// through another extension. The script measures its own CPU time in
// heavy and in sorter (getrusage around each call) and prints the split
// as "cpu_shares=HEAVY/SORTER" on stderr; and, once, who called repl as
// PHP sees it: "repl_called_by=preg_replace_callback/sorter".
function heavy($n) {
	$s = 0;
	for ($i = 0; $i < $n; $i++) { $s = ($s + $i * $i) % 1000003; } // HOT heavy
	return $s;
}

function light($n) {
	$s = 0;
	for ($i = 0; $i < $n; $i++) { $s = ($s + $i * 3) % 1000003; } // HOT light
	return $s;
}

function cmp($a, $b) {
	light(40);
	return $a <=> $b;
}

function repl($m) {
	static $told = false;
	if (!$told) {
		$told = true;
		$b = debug_backtrace(DEBUG_BACKTRACE_IGNORE_ARGS, 3);
		fprintf(STDERR, "repl_called_by=%s/%s\n", $b[1]['function'], $b[2]['function']);
	}
	light(100);
	return (string)($m[0] + 1);
}

function sorter() {
	$a = range(1, 60);
	shuffle($a);
	usort($a, 'cmp');
	preg_replace_callback('/\d+/', 'repl', implode(',', array_slice($a, 0, 30))); // PREG
	return $a[0];
}

function cpu() {
	$r = getrusage();
	return $r['ru_utime.tv_sec'] + $r['ru_utime.tv_usec'] / 1e6 +
	       $r['ru_stime.tv_sec'] + $r['ru_stime.tv_usec'] / 1e6;
}

function run($seconds) {
	$h = 0.0;
	$s = 0.0;
	$end = hrtime(true) + $seconds * 1e9;
	while (hrtime(true) < $end) {
		$t = cpu();
		heavy(20000);
		$u = cpu();
		sorter();
		$v = cpu();
		$h += $u - $t;
		$s += $v - $u;
	}
	$t = $h + $s > 0 ? $h + $s : 1;
	fprintf(STDERR, "cpu_shares=%.1f/%.1f\n", 100 * $h / $t, 100 * $s / $t);
}

run($argc > 1 ? (float)$argv[1] : 4);
