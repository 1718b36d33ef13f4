<?php
// Work inside a fiber and in the main code while it is suspended, for
// t_vm_fibers.sh: php8.2 fibers82.php SECONDS. drive resumes the fiber
// ({closure} -> in_fiber -> fiber_work, and usort's C -> the comparator
// -> fiber_work), which does a round and suspends; then drive does
// root_work itself. The script measures its CPU time (getrusage) inside
// the resumes and in root_work and prints "cpu_shares=FIBER/ROOT" on
// stderr.
function spin($n) {
	$s = 0;
	for ($i = 0; $i < $n; $i++) { $s = ($s + $i * $i) % 1000003; }
	return $s;
}

function fiber_work() { return spin(10000); }

function root_work() { return spin(20000); }

function in_fiber() {
	while (true) {
		fiber_work();
		$a = [3, 1, 2];
		usort($a, function ($x, $y) { if ($x == 2) { fiber_work(); } return $x <=> $y; });
		Fiber::suspend();
	}
}

function cpu() {
	$r = getrusage();
	return $r['ru_utime.tv_sec'] + $r['ru_utime.tv_usec'] / 1e6 +
	       $r['ru_stime.tv_sec'] + $r['ru_stime.tv_usec'] / 1e6;
}

function drive($seconds) {
	$f = new Fiber(function () { in_fiber(); });
	$fw = 0.0;
	$rw = 0.0;
	$end = hrtime(true) + $seconds * 1e9;
	$t = cpu();
	$f->start();
	$u = cpu();
	$fw += $u - $t;
	while (hrtime(true) < $end) {
		$t = cpu();
		root_work();
		$u = cpu();
		$f->resume();
		$v = cpu();
		$rw += $u - $t;
		$fw += $v - $u;
	}
	$t = $fw + $rw > 0 ? $fw + $rw : 1;
	fprintf(STDERR, "cpu_shares=%.1f/%.1f\n", 100 * $fw / $t, 100 * $rw / $t);
}

drive($argc > 1 ? (float)$argv[1] : 4);
