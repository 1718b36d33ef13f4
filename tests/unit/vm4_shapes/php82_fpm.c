// SPDX-License-Identifier: GPL-2.0
/*
 * The PHP runtime on a live php-fpm8.2 worker: a pool of one worker
 * serves a script over FastCGI (tests/workloads/php/fcgi_get.py, one
 * request) that stops in sleep inside a usort comparator (C -> PHP -> C
 * -> PHP) after writing the worker's pid to a file; the worker is then
 * detected, walked and named as php82.c does for php8.2. Skipped when
 * php-fpm8.2 (php8.2-fpm) is absent.
 */
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "php82_live.h"
#include "shape.h"

#define FPM "/usr/sbin/php-fpm8.2"

static const struct live_case fpm_usort = {
	"<?php\n"
	"class Sorter {\n"
	"  function run($a) { usort($a, [$this, 'cmp']); return $a; }\n"
	"  function cmp($x, $y) {\n"
	"    global $go;\n"
	"    if ($go) { $go = false; file_put_contents(__DIR__ . '/unit-fpm-ready', getmypid()); sleep(30); }\n"
	"    return $x <=> $y;\n"
	"  }\n"
	"}\n"
	"function top() { $s = new Sorter; return $s->run([3, 1, 2]); }\n"
	"$go = true;\n"
	"top();\n",
	4, 1, { "Sorter::cmp", "Sorter::run", "top", "{main}" }, { 6, 3, 10, 12 }, false,
};

/* @text written to the file @path; 0, or -1. */
static int put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int bad = !f || fputs(text, f) < 0;

	if (f)
		bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}

static int spawn(char *const argv[])
{
	int pid = fork();

	if (!pid) {
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

UNIT_TEST(php82_live_fpm_worker)
{
	char dir[PATH_MAX], conf[PATH_MAX + 32], sock[PATH_MAX + 32], script[PATH_MAX + 32];
	char ready[PATH_MAX + 32], text[PATH_MAX * 3], pidbuf[16] = "";
	int master, client, worker = 0, status, i;
	FILE *f;

	if (access(FPM, X_OK) || access("/usr/bin/python3", X_OK)) {
		fprintf(stderr, "  %s absent (php8.2-fpm): the live php-fpm walk not tested\n", FPM);
		return;
	}
	CHECK(realpath("build", dir) != NULL);
	snprintf(conf, sizeof(conf), "%s/unit-fpm.conf", dir);
	snprintf(sock, sizeof(sock), "%s/unit-fpm.sock", dir);
	snprintf(script, sizeof(script), "%s/unit-fpm-live.php", dir);
	snprintf(ready, sizeof(ready), "%s/unit-fpm-ready", dir);
	unlink(ready);
	unlink(sock);
	snprintf(text, sizeof(text),
		 "[global]\nerror_log = %s/unit-fpm.log\ndaemonize = no\n"
		 "[t]\nlisten = %s\npm = static\npm.max_children = 1\n", dir, sock);
	CHECK(!put_file(conf, text) && !put_file(script, fpm_usort.script));
	/* -n: no php.ini (no opcache); -R: the tests may run as root. */
	master = spawn((char *const[]){ FPM, "-n", "-R", "-y", conf, NULL });
	for (i = 0; i < 100 && access(sock, F_OK); i++)
		usleep(50000);
	client = spawn((char *const[]){ "/usr/bin/python3", "tests/workloads/php/fcgi_get.py", sock,
					script, "0", NULL });
	for (i = 0; i < 100 && !worker; i++) {
		usleep(50000);
		f = fopen(ready, "r");
		if (f && fgets(pidbuf, sizeof(pidbuf), f))
			worker = atoi(pidbuf);
		if (f)
			fclose(f);
	}
	CHECK(worker > 0);
	if (worker > 0) {
		usleep(100000);	/* into sleep */
		php82_live_check(&fpm_usort, worker, "php-fpm8.2", "unit-fpm-live.php");
		kill(worker, SIGKILL);
	}
	kill(client, SIGKILL);
	waitpid(client, &status, 0);
	kill(master, SIGTERM);
	waitpid(master, &status, 0);
	unlink(ready);
	unlink(script);
	unlink(conf);
	snprintf(text, sizeof(text), "%s/unit-fpm.log", dir);
	unlink(text);
}
