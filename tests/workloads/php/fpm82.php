<?php
// One request of t_vm_php_fpm.sh, served by a php-fpm8.2 worker:
// {main} -> page -> heavy (PHP only), and page -> sorter -> usort (C) ->
// cmp (PHP, called back by C), ten times: 8 ms a request on this
// project's host. Its answer names the worker that ran it.
function heavy($n) {
	$s = 0;
	for ($i = 0; $i < $n; $i++) { $s = ($s + $i * $i) % 1000003; } // HOT heavy
	return $s;
}

function cmp($a, $b) {
	$s = 0;
	for ($i = 0; $i < 40; $i++) { $s += $i; }
	return $a <=> $b;
}

function sorter() {
	$a = range(1, 60);
	shuffle($a);
	usort($a, 'cmp');
	return $a[0];
}

function page() {
	for ($k = 0; $k < 10; $k++) {
		heavy(20000);
		sorter();
	}
	return getmypid();
}

echo "served by ", page(), "\n";
