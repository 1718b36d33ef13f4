// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.9, 3.10, 3.12 and 3.13 as the pyenv builds every machine of the
 * project carries ($(pyenv root)/versions/3.9.18 ... 3.13.0, --enable-shared:
 * Python in libpython3.X.so.1.0, with DWARF): found, laid out as
 * runtime-layouts.md measured them (DWARF; 3.13's _Py_DebugOffsets equal
 * to it), and, as root, the recorder's own program run over a live
 * interpreter's memory under the shapes' fake native stack, its frames
 * named by the namer from that process (3.9 and 3.10: a second thread's
 * too). A machine without the builds says so and skips.
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
#include "util.h"
#include "vm/cpython/cpython.h"
#include "vm4_shapes/shape.h"

#define MAP_START 0x10000000ULL

struct version {
	const char *dir, *minor;	/* "3.12.1", "12" */
	uint64_t eval, eval_size;	/* _PyEval_EvalFrameDefault in the file */
	const char *build_name;
	int32_t rt_interp_head, is_threads_head, ts_native_tid, fr_owner, co_code;
	int32_t str_ascii_data, str_compact_data;
	int32_t shim_sp;	/* objdump -d: movb $0x3,DISP(%rsp) in the prologue, DISP - 70 */
};

static const struct version versions[] = {
	{ "3.9.18", "9", 0x66920, 35197, "CPython 3.9.18 (layout from DWARF)",
	  32, 8, -1, -1, -1, 48, 72, -1 },
	{ "3.10.13", "10", 0x65540, 38051, "CPython 3.10.13 (layout from DWARF)",
	  32, 8, -1, -1, -1, 48, 72, -1 },
	{ "3.12.1", "12", 0x10bdc0, 51245, "CPython 3.12.1 (layout from DWARF)",
	  40, 72, 144, 70, 192, 40, 56, 0xf0 },
	{ "3.13.0", "13", 0x8b8e0, 48125, "CPython 3.13.0 (layout from _Py_DebugOffsets = DWARF)",
	  632, 7344, 160, 70, 200, 40, 56, 0x120 },
};

/* 3.9 and 3.10: one PyFrameObject per eval activation. */
static bool frame_objects(const struct version *v)
{
	return !strcmp(v->minor, "9") || !strcmp(v->minor, "10");
}

static void pyenv_path(char *buf, size_t len, const struct version *v, const char *what)
{
	const char *root = getenv("PYENV_ROOT"), *home = getenv("HOME");

	if (root && *root)
		snprintf(buf, len, "%s/versions/%s/%s3.%s%s", root, v->dir, what, v->minor,
			 *what == 'l' ? ".so.1.0" : "");
	else
		snprintf(buf, len, "%s/.pyenv/versions/%s/%s3.%s%s", home ? home : "/root", v->dir,
			 what, v->minor, *what == 'l' ? ".so.1.0" : "");
}

static enum vmstack_detect detect_file(const char *path, struct vmstack_vm_found *f,
				       char *why, size_t len)
{
	return unit_detect_file("cpython", path, MAP_START, f, why, len);
}

UNIT_TEST(cpython_pyenv_builds_found)
{
	unsigned int i;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		const struct version *v = &versions[i];
		const struct cpython_build *b;
		struct vmstack_vm_found f;
		struct timespec t0, t1;
		char path[512], why[256] = "";

		pyenv_path(path, sizeof(path), v, "lib/libpython");
		if (access(path, R_OK)) {
			fprintf(stderr, "  skipped: no %s (the pyenv build)\n", path);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		CHECK(detect_file(path, &f, why, sizeof(why)) == VMSTACK_DETECT_YES);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		fprintf(stderr, "  %s: %s, found in %.0f ms%s%s\n", path,
			f.build_name ? f.build_name : "?",
			(t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6,
			*why ? ": " : "", why);
		CHECK(f.prog && f.build_name && !strcmp(f.build_name, v->build_name));
		CHECK(f.desc4.ranges[0].start == MAP_START + v->eval &&
		      f.desc4.ranges[0].end == MAP_START + v->eval + v->eval_size);
		CHECK(f.desc4.prog_len > 0 && f.desc4.flags == VMSTACK_VM4_F_NATIVE_STEP);
		/* What the module will check at VM_ADD. */
		CHECK(vmstack_vm_desc4_check(&f.desc4) == NULL);
		fprintf(stderr, "  its program: %u instructions, %u constants\n", f.desc4.prog_len,
			f.desc4.nr_consts);
		b = f.build;
		if (!b)
			continue;
		CHECK(b->L.rt_interp_head == v->rt_interp_head &&
		      b->L.is_threads_head == v->is_threads_head &&
		      b->L.ts_native_tid == v->ts_native_tid && b->L.fr_owner == v->fr_owner &&
		      b->L.co_code == v->co_code && b->L.owner_cstack == (v->fr_owner < 0 ? -1 : 3) &&
		      b->L.str_ascii_data == v->str_ascii_data &&
		      b->L.str_compact_data == v->str_compact_data);
		/* 3.9: f_lasti and co_lnotab where runtime-layouts.md has them. */
		if (!strcmp(v->minor, "9"))
			CHECK(b->L.fr_lasti == 104 && b->L.co_linetable == 120 &&
			      b->L.ts_thread_id == 176 && b->L.ts_frame == 24);
		/* Detected again: the same build, DWARF not read twice. */
		CHECK(detect_file(path, &f, why, sizeof(why)) == VMSTACK_DETECT_YES && f.build == b);
		CHECK(b->shim_sp == v->shim_sp);
	}
}

/*
 * The other pyenv builds: 3.11.7 by 3.11's table (its name unchanged);
 * 3.8 not claimed (no Py_Version, and Py_GetVersion formats 3.8): the
 * unwalked runtimes name it.
 */
UNIT_TEST(cpython_pyenv_311_38)
{
	static const struct version v311 = { .dir = "3.11.7", .minor = "11" };
	static const struct version v38 = { .dir = "3.8.18", .minor = "8" };
	struct vmstack_vm_found f;
	char path[512], why[256] = "";

	pyenv_path(path, sizeof(path), &v311, "lib/libpython");
	if (access(path, R_OK)) {
		fprintf(stderr, "  skipped: no %s (the pyenv build)\n", path);
	} else {
		CHECK(detect_file(path, &f, why, sizeof(why)) == VMSTACK_DETECT_YES);
		CHECK(!f.prog && f.build_name && !strcmp(f.build_name, "CPython 3.11.7"));
	}
	pyenv_path(path, sizeof(path), &v38, "lib/libpython");
	if (access(path, R_OK))
		fprintf(stderr, "  skipped: no %s (the pyenv build)\n", path);
	else
		CHECK(detect_file(path, &f, why, sizeof(why)) == VMSTACK_DETECT_NO);
}

/* @path's GNU build-id, as bytes: their count, or 0. */
static size_t build_id_bytes(const char *path, unsigned char *out, size_t max)
{
	struct stat st;
	struct vmstack_file *file;
	const char *hex;
	size_t n = 0;
	unsigned int byte;

	if (stat(path, &st))
		return 0;
	file = vmstack_file_get(st.st_dev, st.st_ino, path, 0);
	hex = file ? vmstack_file_build_id(file) : "";
	while (n < max && hex[2 * n] && sscanf(hex + 2 * n, "%2x", &byte) == 1)
		out[n++] = (unsigned char)byte;
	vmstack_file_put(file);
	return n;
}

/*
 * 3.13 whose _Py_DebugOffsets say another threads.head than its DWARF:
 * refused. (Another build-id too: layouts are kept by build.)
 */
UNIT_TEST(cpython313_debug_offsets_disagree)
{
	static const unsigned char cookie[] = { 'x', 'd', 'e', 'b', 'u', 'g', 'p', 'y',
						0xf0, 0x00, 0x0d, 0x03 };
	const char *copy = "build/unit-py313-debug-offsets";
	struct vmstack_vm_found f;
	char path[512], why[256] = "";
	unsigned char *data, *p, id[64];
	size_t size, idn;
	uint64_t head;
	FILE *fp;

	pyenv_path(path, sizeof(path), &versions[3], "lib/libpython");	/* 3.13.0 */
	fp = fopen(path, "r");
	if (!fp) {
		fprintf(stderr, "  skipped: no %s (the pyenv build)\n", path);
		return;
	}
	idn = build_id_bytes(path, id, sizeof(id));
	CHECK(idn > 0);
	fseek(fp, 0, SEEK_END);
	size = (size_t)ftell(fp);
	rewind(fp);
	data = malloc(size);
	CHECK(data && fread(data, 1, size, fp) == size);
	fclose(fp);
	p = data ? memmem(data, size, cookie, sizeof(cookie)) : NULL;
	CHECK(p != NULL);
	if (!p) {
		free(data);
		return;
	}
	memcpy(&head, p + 72, 8);	/* interpreter_state.threads_head */
	CHECK(head == 7344);
	head += 8;
	memcpy(p + 72, &head, 8);
	p = idn ? memmem(data, size, id, idn) : NULL;
	CHECK(p != NULL);
	if (p)
		p[idn - 1] ^= 1;
	fp = fopen(copy, "w");
	CHECK(fp && fwrite(data, 1, size, fp) == size);
	if (fp)
		fclose(fp);
	free(data);
	CHECK(detect_file(copy, &f, why, sizeof(why)) == VMSTACK_DETECT_UNKNOWN);
	CHECK(strstr(why, "_Py_DebugOffsets and its DWARF disagree on is_threads_head") != NULL);
	unlink(copy);
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
static int start_python(const char *python, const char *code, int *other)
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

	memset(&nb, 0, sizeof(nb));
	snprintf(out, len, "?");
	if (!vmstack_is_vmw(ips[i]) || vmstack_vmw_kind(ips[i]) != VMSTACK_VMW_SCRIPT)
		return;
	fr.value = vmstack_vmw_value(ips[i]);
	fr.pc = ips[i + 1];
	if (!cpython_name(build, pid, &fr, &nb))
		snprintf(out, len, "%s %s:%u", nb.function, nb.file, nb.line);
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
static void live_version(const struct version *v, bool threaded)
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

	pyenv_path(python, sizeof(python), v, "bin/python");
	pyenv_path(lib, sizeof(lib), v, "lib/libpython");
	if (access(python, X_OK) || geteuid()) {
		fprintf(stderr, "  skipped: %s\n", geteuid() ? "not root (reads another process's memory)"
			: "no pyenv python");
		return;
	}
	pid = start_python(python, threaded ? script310_thread : frame_objects(v) ? script310 : script,
			   &other);
	CHECK(pid > 0);
	if (pid <= 0)
		return;
	CHECK(!live_map(pid, lib, &m, line, sizeof(line)));
	memset(&f, 0, sizeof(f));
	CHECK(m.file && py->detect(&m, pid, &f, why, sizeof(why)) == VMSTACK_DETECT_YES);
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
		if (!frame_objects(v)) {
			const struct cpython_build *b = f.build;
			u64 shims[2];

			/*
			 * The program proves each shim is its native frame's
			 * own (sp + shim_sp): the fake eval frames' sp are put
			 * where the live shims say they were.
			 */
			CHECK(b->shim_sp == v->shim_sp);
			CHECK(live_shims(pid, &m, b, shims, 2) == 2);
			CHECK(b->shim_sp >= 0x40);
			/*
			 * Frame pointers grow up the stack: the C frames between
			 * the activations sit between the leaf's and the outer's,
			 * below the inner shim.
			 */
			shape_bp_at[0] = shims[0] - (u64)b->shim_sp - 16;
			shape_bp_at[1] = shape_bp_at[0] + 16;
			shape_bp_at[2] = shape_bp_at[0] + 32;
			shape_bp_at[3] = shims[1] - (u64)b->shim_sp - 16;
			shape_bp_at[4] = shape_bp_at[3] + 16;
			fake_mem_map(shape_bp_at[0], 48);
			fake_mem_map(shape_bp_at[3], 32);
		}
		n = shape_walk_ips(&d, &w, ips, 32);
		if (frame_objects(v)) {
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

UNIT_TEST(cpython_pyenv_live)
{
	unsigned int i;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		live_version(&versions[i], false);
		if (frame_objects(&versions[i]))
			live_version(&versions[i], true);
	}
}
