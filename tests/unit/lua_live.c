// SPDX-License-Identifier: GPL-2.0
/* Live Lua interpreters for the unit tests (lua_live.h). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_mem.h"
#include "file.h"
#include "lua_live.h"
#include "unit.h"
#include "vm/desc3_prog.h"
#include "vm/runtime.h"
#include "walk.h"

/* The executable mapping of @path in @pid, in @m (its file got). */
int lua_live_code_map(pid_t pid, const char *path, struct vmstack_map *m)
{
	char name[64], line[512], perms[8], file[256];
	unsigned long start, end, offset;
	struct stat st;
	FILE *f;
	int ret = -1;

	snprintf(name, sizeof(name), "/proc/%d/maps", pid);
	f = fopen(name, "r");
	while (f && fgets(line, sizeof(line), f)) {
		*file = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &start, &end, perms, &offset,
			   file) < 4 || strcmp(perms, "r-xp") || strcmp(file, path) ||
		    stat(path, &st))
			continue;
		m->start = start, m->end = end, m->offset = offset;
		m->path = (char *)path;
		m->file = vmstack_file_get(st.st_dev, st.st_ino, path, 0);
		ret = 0;
		break;
	}
	if (f)
		fclose(f);
	return ret;
}

/* The process's writable private mappings (up to 64 MB each) as fake memory. */
void lua_live_mirror(pid_t pid)
{
	char name[64], line[512], perms[8];
	static uint64_t buf[8192];
	unsigned long start, end, a;
	unsigned int n = 0;
	ssize_t got, j;
	FILE *f;
	int fd;

	fake_mem_reset();
	snprintf(name, sizeof(name), "/proc/%d/mem", pid);
	fd = open(name, O_RDONLY);
	snprintf(name, sizeof(name), "/proc/%d/maps", pid);
	f = fopen(name, "r");
	while (fd >= 0 && f && fgets(line, sizeof(line), f) && n < 64) {
		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) < 3 ||
		    strcmp(perms, "rw-p") || end - start > (64UL << 20))
			continue;
		fake_mem_map(start, end - start);
		n++;
		for (a = start; a < end; a += sizeof(buf)) {
			got = pread(fd, buf, end - a < sizeof(buf) ? end - a : sizeof(buf), (off_t)a);
			for (j = 0; j < got / 8; j++)
				if (buf[j])
					fake_put64(a + 8 * (unsigned long)j, buf[j]);
		}
	}
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
}

/* Stop @pid (seized) with its pc in [lo, hi); 0, or -1. */
int lua_live_stop_in(pid_t pid, uint64_t lo, uint64_t hi, struct user_regs_struct *r)
{
	int i, status;

	for (i = 0; i < 200; i++) {
		if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) || waitpid(pid, &status, 0) != pid ||
		    ptrace(PTRACE_GETREGS, pid, 0, r))
			return -1;
		if (r->rip >= lo && r->rip < hi)
			return 0;
		ptrace(PTRACE_CONT, pid, 0, 0);
		usleep(5000);
	}
	return -1;
}

/* Spawn @argv; its pid. */
pid_t lua_live_spawn(char *const argv[])
{
	pid_t pid = fork();

	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

pid_t lua_live_run(char *const argv[], const char *script)
{
	FILE *f;
	pid_t pid;

	if (geteuid() || access(argv[0], X_OK)) {
		fprintf(stderr, "  %s: not installed or not root, skipped\n", argv[0]);
		return 0;
	}
	f = fopen(argv[1], "w");
	CHECK(f && fputs(script, f) >= 0);
	if (f)
		fclose(f);
	pid = lua_live_spawn(argv);
	usleep(200000);
	return pid;
}

unsigned int lua_live_walk(const struct vmstack_vm_desc4 *d, pid_t pid, u64 *ips,
			   unsigned int max)
{
	struct user_regs_struct r;
	struct vmstack_walk w;

	if (lua_live_stop_in(pid, d->ranges[0].start, d->ranges[0].end, &r))
		return 0;
	lua_live_mirror(pid);
	memset(&w, 0, sizeof(w));
	w.vms = d;
	w.nr_vms = 1;
	w.ip = r.rip;
	w.sp = r.rsp;
	w.regs[VMSTACK_VM_REG_RBP] = r.rbp;
	w.regs[VMSTACK_VM_REG_RBX] = r.rbx;
	w.regs[VMSTACK_VM_REG_RDX] = r.rdx;
	w.regs[VMSTACK_VM_REG_R14] = r.r14;
	w.regs[VMSTACK_VM_REG_R12] = r.r12;
	w.tid = (u32)pid;
	w.ips = ips;
	w.max = max;
	w.reads_left = VMSTACK_MAX_READS;
	w.deadline = ~0ULL;
	return vmstack_walk_user(&w);
}

pid_t lua_live_attach(const char *rt_name, const char *interp, const char *script,
		      struct vmstack_vm_found *found, struct vmstack_map *m)
{
	const struct vmstack_runtime *rt = vmstack_runtime_find(rt_name);
	char *argv[] = { (char *)interp, (char *)LUA_LIVE_SCRIPT, (char *)LUA_LIVE_NAMES, NULL };
	char why[256];
	pid_t pid = lua_live_run(argv, script);

	if (!pid)
		return 0;
	memset(m, 0, sizeof(*m));
	memset(found, 0, sizeof(*found));
	CHECK(rt && !lua_live_code_map(pid, interp, m));
	CHECK(rt && rt->detect(m, pid, found, why, sizeof(why)) == VMSTACK_DETECT_YES);
	CHECK(!ptrace(PTRACE_SEIZE, pid, 0, 0));
	return pid;
}

void lua_live_script_frames(const struct vmstack_vm_desc4 *d, pid_t pid,
			    struct lua_live_frames *fr)
{
	static u64 ips[64];
	unsigned int n = lua_live_walk(d, pid, ips, 64), i;

	fr->n = 0;
	for (i = 0; i + 1 < n && fr->n < 16; i++)
		if (vmstack_is_vmw(ips[i]) && vmstack_vmw_kind(ips[i]) == VMSTACK_VMW_SCRIPT) {
			fr->proto[fr->n] = ips[i] & VMSTACK_VMW_VALUE_MASK;
			fr->pc[fr->n++] = ips[++i];
		}
}

unsigned int lua_live_read_names(char (*want)[64], unsigned int max)
{
	FILE *f = fopen(LUA_LIVE_NAMES, "r");
	unsigned int k;

	for (k = 0; f && k < max && fgets(want[k], sizeof(want[k]), f); k++)
		want[k][strcspn(want[k], "\n")] = 0;
	if (f)
		fclose(f);
	return k;
}

void lua_live_detach(pid_t pid, struct vmstack_map *m)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	vmstack_file_put(m->file);
	fake_mem_reset();
	unlink(LUA_LIVE_SCRIPT);
	unlink(LUA_LIVE_NAMES);
}

void lua_live_names(const struct lua_live_names *t)
{
	const struct vmstack_runtime *rt = vmstack_runtime_find(t->rt);
	static struct vmstack_vm_found found;
	static struct vmstack_vm_desc4 compiled;
	const struct vmstack_vm_desc4 *prog = &found.desc4;
	struct lua_live_frames fr;
	char want[16][64], got[64];
	struct vmstack_map m;
	unsigned int k, ok = 0;
	pid_t pid = lua_live_attach(t->rt, t->interp, t->script, &found, &m);

	if (!pid)
		return;
	CHECK(t->ncalls <= 16 && t->nframes < t->ncalls);
	if (t->desc3) {
		const char *err = vmstack_desc3_prog(&found.desc, &compiled);

		if (err)
			fprintf(stderr, "  %s: %s\n", t->interp, err);
		CHECK(!err);
		prog = &compiled;
	}
	lua_live_script_frames(prog, pid, &fr);
	CHECK(lua_live_read_names(want, t->ncalls) == t->ncalls && fr.n > t->nframes);
	for (k = 0; k < t->nframes && k + 1 < fr.n && k < t->ncalls; k++) {
		struct vmstack_frame callee = { .kind = VMSTACK_FRAME_SCRIPT,
						.value = fr.proto[k], .pc = fr.pc[k] };
		struct vmstack_frame caller = { .kind = VMSTACK_FRAME_SCRIPT,
						.value = fr.proto[k + 1], .pc = fr.pc[k + 1] };
		const char *lua = want[k ? t->nframes - 1 - k : t->ncalls - 1];

		if (rt->site_namer(found.build, pid, &callee, &caller, got, sizeof(got)))
			snprintf(got, sizeof(got), "nil");
		ok += !strcmp(got, lua);
		if (strcmp(got, lua))
			fprintf(stderr, "  %s: frame %u named %s, Lua says %s\n", t->interp, k, got,
				lua);
	}
	fprintf(stderr, "  %s: %u of %u names as debug.getinfo's\n", t->interp, ok, t->nframes);
	CHECK(ok == t->nframes);
	if (t->then && fr.n)
		t->then(found.build, pid, fr.proto[0], fr.pc[0]);
	lua_live_detach(pid, &m);
}
