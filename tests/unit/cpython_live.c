// SPDX-License-Identifier: GPL-2.0
/*
 * A live pyenv CPython (cpython_pyenv.h): the interpreter started on a
 * script whose stack is known, its threads stopped in time.sleep, found
 * by detection on its live mapping, and the recorder's own program run
 * over its memory under the shapes' fake native stack; its frames named
 * by the namer from that process (3.9 and 3.10: a second thread's too).
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "elf_facts.h"
#include "fake_mem.h"
#include "detect_file.h"
#include "file.h"
#include "maps.h"
#include "unit.h"
#include "cpython_pyenv.h"
#include "util.h"
#include "vm/cpython/cpython.h"
#include "vm4_shapes/shape.h"

/* 3.9 and 3.10: one PyFrameObject per eval activation. */
bool cpython_frame_objects(const struct version *v)
{
	return !strcmp(v->minor, "9") || !strcmp(v->minor, "10");
}

void cpython_pyenv_path(char *buf, size_t len, const struct version *v, const char *what)
{
	const char *root = getenv("PYENV_ROOT"), *home = getenv("HOME");

	if (root && *root)
		snprintf(buf, len, "%s/versions/%s/%s3.%s%s", root, v->dir, what, v->minor,
			 *what == 'l' ? ".so.1.0" : "");
	else
		snprintf(buf, len, "%s/.pyenv/versions/%s/%s3.%s%s", home ? home : "/root", v->dir,
			 what, v->minor, *what == 'l' ? ".so.1.0" : "");
}
/*
 * C -> Python -> C -> Python: <module> calls g, g calls sorted (C), whose
 * key f (Python) sleeps (C, the GIL released). Lines: f's time.sleep is
 * line 5, g's sorted line 8, <module>'s g() line 9. In 3.9 and 3.10 each
 * Python call is an activation of its own: the fake native stack holds
 * two, so <module> calls sorted itself there (script310, line 7).
 */
static const char script[] =
	"import sys, time\n"
	"def f(x):\n"
	"    sys.stdout.write('ready\\n')\n"
	"    sys.stdout.flush()\n"
	"    time.sleep(30)\n"
	"    return x\n"
	"def g():\n"
	"    return sorted([1], key=f)\n"
	"g()\n";
static const char script310[] =
	"import sys, time\n"
	"def f(x):\n"
	"    sys.stdout.write('ready\\n')\n"
	"    sys.stdout.flush()\n"
	"    time.sleep(30)\n"
	"    return x\n"
	"sorted([1], key=f)\n";
/*
 * 3.9 and 3.10, a second thread: t calls sorted, whose key f sleeps (line
 * 4; t's sorted line 7) while the main thread sleeps in <module>. Each
 * thread's state is found by its own fs base.
 */
static const char script310_thread[] =
	"import sys, threading, time\n"
	"def f(x):\n"
	"    sys.stdout.write('ready\\n'); sys.stdout.flush()\n"
	"    time.sleep(30)\n"
	"    return x\n"
	"def t():\n"
	"    sorted([1], key=f)\n"
	"threading.Thread(target=t).start()\n"
	"time.sleep(30)\n";

/*
 * Whether each of @pid's threads sleeps in time.sleep's system call, as
 * /proc/PID/task/TID/syscall shows it: "ready" is written before, and a
 * walk between the two would see another line. @other: a thread not the
 * main one, or 0.
 */
static bool in_sleep(int pid, int *other)
{
	char path[300], *text;
	struct dirent *e;
	bool yes = true;
	DIR *dir;

	*other = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (dir && yes && (e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/syscall", pid, e->d_name);
		text = read_file(path, 4096);
		/* x86-64: clock_nanosleep (3.11+), pselect6 (3.9's and 3.10's time.sleep) */
		yes = text && (!strncmp(text, "230 ", 4) || !strncmp(text, "270 ", 4));
		free(text);
		if (atoi(e->d_name) != pid)
			*other = atoi(e->d_name);
	}
	if (dir)
		closedir(dir);
	return dir && yes;
}

/*
 * A child running @python on the script, its threads stopped in
 * time.sleep; its pid, or -1. @other: a thread not the main one, or 0.
 */
static int start_python(const char *python, const char *code, const char *libdir, int *other)
{
	int fds[2], pid, i = 0;
	char buf[16] = "";
	ssize_t n;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		/* before the build's RUNPATH */
		if (libdir)
			setenv("LD_LIBRARY_PATH", libdir, 1);
		execl(python, python, "-c", code, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	n = pid > 0 ? read(fds[0], buf, sizeof(buf) - 1) : -1;
	close(fds[0]);
	for (i = 0; n > 0 && i < 200 && !in_sleep(pid, other); i++)
		usleep(10000);
	if (n <= 0 || strncmp(buf, "ready", 5) || i == 200) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return -1;
	}
	return pid;
}

/* Thread @tid's fs base (3.9 and 3.10 key their threads by it), or 0. */
static u64 fs_base(int tid)
{
	struct user_regs_struct regs;
	u64 fs = 0;
	int status;

	if (ptrace(PTRACE_ATTACH, tid, 0, 0))
		return 0;
	/* __WALL: a thread other than the main one is a clone child */
	if (waitpid(tid, &status, __WALL) == tid && !ptrace(PTRACE_GETREGS, tid, 0, &regs))
		fs = regs.fs_base;
	ptrace(PTRACE_DETACH, tid, 0, 0);
	return fs;
}

/* The live mapping of @lib's code in @pid, with its file object. */
static int live_map(int pid, const char *lib, struct vmstack_map *m, char *line, size_t len)
{
	char maps[64];
	FILE *fp;
	int found = -1;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	fp = fopen(maps, "r");
	while (fp && found && fgets(line, (int)len, fp))
		if (!vmstack_map_parse(line, m) && strchr(m->perms, 'x') && !strcmp(m->path, lib))
			found = 0;
	if (fp)
		fclose(fp);
	if (!found)
		m->file = vmstack_file_get(m->dev, m->inode, m->path, pid);
	return found;
}

/* Frame @i of @ips, a script frame, named in @pid: "function file:line". */
static void name_of(const void *build, int pid, const u64 *ips, unsigned int i, char *out,
		    size_t len)
{
	struct vmstack_frame fr = { .kind = VMSTACK_FRAME_SCRIPT };
	struct vmstack_name_buf nb;
	uint64_t tag;

	memset(&nb, 0, sizeof(nb));
	snprintf(out, len, "?");
	if (!vmstack_is_vmw(ips[i]) || vmstack_vmw_kind(ips[i]) != VMSTACK_VMW_SCRIPT)
		return;
	fr.value = vmstack_vmw_value(ips[i]);
	fr.pc = ips[i + 1];
	if (cpython_name(build, pid, &fr, &nb))
		return;
	snprintf(out, len, "%s %s:%u", nb.function, nb.file, nb.line);
	/* Another code object than was sampled there (another nonzero tag): not named. */
	tag = (fr.value >> VMSTACK_VM_IDENT_TAG_SHIFT) & VMSTACK_VM_IDENT_TAG_MASK;
	fr.value &= (1ULL << VMSTACK_VM_IDENT_TAG_SHIFT) - 1;
	fr.value |= (uint64_t)(tag % VMSTACK_VM_IDENT_TAG_MASK + 1) << VMSTACK_VM_IDENT_TAG_SHIFT;
	CHECK(cpython_name(build, pid, &fr, &nb) != 0);
}

/*
 * 3.12+: the live thread's shims, innermost first (@n at most), found by
 * following its chain with the detected layout; their count.
 */
static unsigned int live_shims(int pid, const struct vmstack_map *m, const struct cpython_build *b,
			       u64 *shims, unsigned int n)
{
	const struct cpython_layout *L = &b->L;
	uint64_t lo, rt, interp = 0, ts = 0, fr = 0;
	unsigned int k = 0, steps;
	GElf_Sym sym;
	uint8_t owner;

	if (vmstack_elf_symbol(vmstack_file_elf(m->file), "_PyRuntime", &sym) ||
	    vmstack_file_vaddr(m->file, m->offset, &lo))
		return 0;
	rt = sym.st_value + m->start - lo;
	if (read_target(pid, rt + L->rt_interp_head, &interp, 8) ||
	    read_target(pid, interp + L->is_threads_head, &ts, 8))
		return 0;
	if (L->ts_cframe >= 0 ? read_target(pid, ts + L->ts_cframe, &fr, 8) ||
				read_target(pid, fr + L->cf_current_frame, &fr, 8) :
				read_target(pid, ts + L->ts_current_frame, &fr, 8))
		return 0;
	for (steps = 0; fr && k < n && steps < 64; steps++) {
		if (read_target(pid, fr + L->fr_owner, &owner, 1))
			return k;
		if (owner == L->owner_cstack)
			shims[k++] = fr;
		if (read_target(pid, fr + L->fr_previous, &fr, 8))
			return k;
	}
	return k;
}

/* @threaded: the second thread of script310_thread (3.9 and 3.10). */
void cpython_live_version(const struct version *v, bool threaded, const char *libdir,
			  const char *want_name)
{
	static struct vmstack_vm_desc4 d;
	const struct vmstack_runtime *py = vmstack_runtime_find("cpython");
	struct vmstack_vm_found f;
	struct vmstack_map m;
	struct vmstack_walk w;
	char python[512], lib[512], line[1024], why[256] = "", names[3][800];
	u64 ips[32];
	unsigned int n;
	int pid, other;

	cpython_pyenv_path(python, sizeof(python), v, "bin/python");
	if (libdir)
		snprintf(lib, sizeof(lib), "%s/libpython3.%s.so.1.0", libdir, v->minor);
	else
		cpython_pyenv_path(lib, sizeof(lib), v, "lib/libpython");
	if (v->path) {
		snprintf(python, sizeof(python), "%s", v->path);
		snprintf(lib, sizeof(lib), "%s", v->path);
	}
	if (access(python, X_OK) || geteuid()) {
		fprintf(stderr, "  skipped: %s\n", geteuid() ? "not root (reads another process's memory)"
			: "no pyenv python");
		return;
	}
	pid = start_python(python, threaded ? script310_thread : cpython_frame_objects(v) ? script310 : script,
			   libdir, &other);
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	CHECK(!live_map(pid, lib, &m, line, sizeof(line)));
	memset(&f, 0, sizeof(f));
	CHECK(m.file && py->detect(&m, pid, &f, why, sizeof(why)) == VMSTACK_DETECT_YES);
	if (want_name) {
		fprintf(stderr, "  live %s from %s: %s%s%s\n", v->dir, lib,
			f.build_name ? f.build_name : "?", *why ? ": " : "", why);
		CHECK(f.build_name && !strcmp(f.build_name, want_name));
	}
	if (f.prog) {
		/* The program as detected, its entry range the fake stack's. */
		d = f.desc4;
		d.ranges[0].start = SHAPE_VM_LO;
		d.ranges[0].end = SHAPE_VM_HI;
		shape_mem();
		/* the thread's native_thread_id, its fs base */
		shape_tid = (unsigned int)(threaded ? other : pid);
		shape_tls = fs_base(threaded ? other : pid);
		CHECK(shape_tls != 0);
		fake_mem_process(pid);
		if (!cpython_frame_objects(v)) {
			const struct cpython_build *b = f.build;
			u64 shims[2];

			/*
			 * The program proves each shim is its native frame's
			 * own (sp + shim_sp): the fake eval frames' sp are put
			 * where the live shims say they were.
			 */
			CHECK(v->path || b->shim_sp == v->shim_sp);
			CHECK(live_shims(pid, &m, b, shims, 2) == 2);
			/* (bp form: the fake frames above the shim clear of its owner) */
			CHECK(b->shim_sp >= 0x40 || b->shim_bp <= -(b->L.fr_owner + 1 + 16));
			/*
			 * Frame pointers grow up the stack: the C frames between
			 * the activations sit between the leaf's and the outer's,
			 * below the inner shim (sp-relative), or above it
			 * (bp-relative: the eval frames' bp above their shims).
			 */
			if (b->shim_sp >= 0) {
				shape_bp_at[0] = shims[0] - (u64)b->shim_sp - 16;
				shape_bp_at[3] = shims[1] - (u64)b->shim_sp - 16;
			} else {
				shape_bp_at[0] = shims[0] - (u64)(int64_t)b->shim_bp - 16;
				shape_bp_at[3] = shims[1] - (u64)(int64_t)b->shim_bp - 16;
			}
			shape_bp_at[1] = shape_bp_at[0] + 16;
			shape_bp_at[2] = shape_bp_at[0] + 32;
			shape_bp_at[4] = shape_bp_at[3] + 16;
			fake_mem_map(shape_bp_at[0], 48);
			fake_mem_map(shape_bp_at[3], 32);
		}
		n = shape_walk_ips(&d, &w, ips, 32);
		if (cpython_frame_objects(v)) {
			CHECK(n == 8 && ips[0] == SHAPE_LEAF && ips[3] == SHAPE_MID1_RA &&
			      ips[4] == SHAPE_MID2_RA && ips[7] == SHAPE_MAIN_RA &&
			      w.flags == VMSTACK_SF_VM);
			name_of(f.build, pid, ips, 1, names[0], sizeof(names[0]));
			name_of(f.build, pid, ips, 5, names[1], sizeof(names[1]));
			fprintf(stderr, "  live %s%s: %u words; %s | %s\n", v->dir,
				threaded ? ", its second thread" : "", n, names[0], names[1]);
			CHECK(!strcmp(names[0], threaded ? "f <string>:4" : "f <string>:5") &&
			      !strcmp(names[1], threaded ? "t <string>:7" : "<module> <string>:7"));
		} else {
			CHECK(n == 10 && ips[0] == SHAPE_LEAF && ips[3] == SHAPE_MID1_RA &&
			      ips[4] == SHAPE_MID2_RA && ips[9] == SHAPE_MAIN_RA &&
			      w.flags == VMSTACK_SF_VM);
			name_of(f.build, pid, ips, 1, names[0], sizeof(names[0]));
			name_of(f.build, pid, ips, 5, names[1], sizeof(names[1]));
			name_of(f.build, pid, ips, 7, names[2], sizeof(names[2]));
			fprintf(stderr, "  live %s: %u words; %s | %s | %s\n", v->dir, n, names[0],
				names[1], names[2]);
			CHECK(!strcmp(names[0], "f <string>:5") && !strcmp(names[1], "g <string>:8") &&
			      !strcmp(names[2], "<module> <string>:9"));
		}
		fake_mem_reset();
	}
	vmstack_file_put(m.file);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
