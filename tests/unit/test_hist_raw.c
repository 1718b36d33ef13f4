// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raw_file.h"
#include "unit.h"

UNIT_TEST(hist_buckets_are_ordered_and_tight)
{
	unsigned int b, prev = 0;
	uint64_t ns;

	/* Every bucket's lower bound maps back to the bucket. */
	for (b = 0; b < VMSTACK_HIST_BUCKETS; b++)
		CHECK(vmstack_hist_bucket(vmstack_hist_lower(b)) == b);
	/* Monotonic, and the lower bound is within 12.5% below the value. */
	for (ns = 0; ns < 5000000; ns += 1 + ns / 64) {
		b = vmstack_hist_bucket(ns);
		CHECK(b >= prev);
		CHECK(vmstack_hist_lower(b) <= ns);
		CHECK(ns - vmstack_hist_lower(b) <= ns / 8);
		prev = b;
	}
	CHECK(vmstack_hist_bucket(~0ULL) == VMSTACK_HIST_BUCKETS - 1);
}

/* VM frame @f's name, as collapsed stacks show it. */
static const char *frame_text(struct vmstack_process *s, const struct vmstack_frame *f,
			      char *buf, size_t len)
{
	char part[256];
	struct vmstack_name n;

	vmstack_process_name(s, f, NULL, &n, part, sizeof(part));
	vmstack_name_text(&n, buf, len);
	return buf;
}

UNIT_TEST(raw_file_round_trip)
{
	char path[] = "/tmp/vmstack-raw-XXXXXX";
	struct vmstack_process *proc = vmstack_process_new(getpid());
	struct vmstack_raw_buf buf = { 0 };
	struct vmstack_threads threads;
	struct vmstack_raw_head head = { .pid = 1234, .comm = "my prog", .freq = 999,
					 .lost = 7, .duration_ns = 2500000000ull };
	struct {
		struct vmstack_rec_sample rec;
		uint64_t ips[2];
	} r = { 0 };
	struct vmstack_raw raw;
	char msg[128];
	FILE *f;
	int i, fd;

	CHECK(vmstack_process_refresh(proc) > 0);
	vmstack_process_add_vm_name(proc, vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0x1234), 0,
				       &(struct vmstack_name){ .function = "app.lua:10",
				       .file = "app.lua", .line = 10, .start_line = 10 });
	/* VM 1 names lines: one identity, two PCs, two names. */
	vmstack_process_add_vm_name(proc, vmstack_vmw(VMSTACK_VMW_SCRIPT, 1, 0x5678), 0x100,
				       &(struct vmstack_name){ .function = "f", .file = "a.py",
				       .line = 3, .start_line = 2, .flags = VMSTACK_NAME_AT_LINE });
	vmstack_process_add_vm_name(proc, vmstack_vmw(VMSTACK_VMW_SCRIPT, 1, 0x5678), 0x120,
				       &(struct vmstack_name){ .function = "f", .file = "a.py",
				       .line = 4, .start_line = 2, .flags = VMSTACK_NAME_AT_LINE });
	/* What a caller at 0xabc's PC 0x40 calls app.lua:10: its name shown at its line. */
	vmstack_process_add_vm_site(proc, &(struct vmstack_vm_site){
				    vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0x1234), 0,
				    vmstack_vmw(VMSTACK_VMW_SCRIPT, 0, 0xabc), 0x40 }, "spin");
	/* VM 0's frames with pc bit 2 and not bit 1 named across native frames. */
	vmstack_process_set_vm_across(proc, 0, &(struct vmstack_vm_across){ 3, 2, 0x7000, 0x7100 });
	/* Parts with spaces, colons, parentheses and a newline: bytes, kept whole. */
	vmstack_process_add_vm_name(proc, vmstack_vmw(VMSTACK_VMW_SCRIPT, 1, 0x9000), 0x10,
				       &(struct vmstack_name){ .function = "lemur",
				       .file = "/tmp/py dir/odd (v2):x\n.py", .line = 7,
				       .start_line = 5, .flags = VMSTACK_NAME_AT_LINE });
	r.rec.hdr.type = VMSTACK_REC_SAMPLE;
	r.rec.hdr.size = sizeof(r);
	r.rec.nr_user = 2;
	for (i = 0; i < 100; i++) {
		r.rec.tid = i;
		vmstack_raw_append(&buf, &r.rec);
	}
	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	vmstack_threads_init(&threads);
	vmstack_threads_set(&threads, 7, "worker 1");
	vmstack_threads_set(&threads, 8, "");
	CHECK(!vmstack_raw_write(path, &head, proc, &threads, &buf));
	CHECK(!vmstack_raw_read(path, &raw, msg, sizeof(msg)));
	CHECK(raw.head.pid == 1234 && !strcmp(raw.head.comm, "my prog"));
	CHECK(raw.head.freq == 999 && raw.head.lost == 7 &&
	      raw.head.duration_ns == 2500000000ull);
	CHECK(raw.records.len == 100 * sizeof(r));
	CHECK(!strcmp(vmstack_threads_name(&raw.threads, 7), "worker 1"));
	CHECK(!vmstack_threads_name(&raw.threads, 8) && raw.threads.n == 2);
	vmstack_threads_free(&threads);
	CHECK(vmstack_process_nr_maps(raw.proc) == vmstack_process_nr_maps(proc));
	{
		struct vmstack_frame f = { .kind = VMSTACK_FRAME_SCRIPT, .value = 0x1234 };
		struct vmstack_name n;

		struct vmstack_frame caller = { .kind = VMSTACK_FRAME_SCRIPT, .value = 0xabc,
						.pc = 0x40 };

		CHECK(!strcmp(frame_text(raw.proc, &f, msg, sizeof(msg)), "app.lua:10"));
		{
			const struct vmstack_vm_across *a = vmstack_process_vm_across(raw.proc, f.vm);

			CHECK(a && a->mask == 3 && a->bits == 2 && a->stop_lo == 0x7000 &&
			      a->stop_hi == 0x7100);
			CHECK(!vmstack_process_vm_across(raw.proc, 1));
		}
		vmstack_process_name(raw.proc, &f, &caller, &n, msg, sizeof(msg));
		CHECK(!strcmp(n.function, "spin") && n.line == 10 &&
		      n.flags == VMSTACK_NAME_AT_LINE);
		caller.pc = 0x44;	/* another call: not known, the frame's own name */
		vmstack_process_name(raw.proc, &f, &caller, &n, msg, sizeof(msg));
		CHECK(!strcmp(n.function, "app.lua:10") && !n.flags);
		f.vm = 1;
		f.value = 0x5678;
		f.pc = 0x120;
		CHECK(!strcmp(frame_text(raw.proc, &f, msg, sizeof(msg)), "f (a.py:4)"));
		f.pc = 0x100;
		CHECK(!strcmp(frame_text(raw.proc, &f, msg, sizeof(msg)), "f (a.py:3)"));
		f.value = 0x9000;
		f.pc = 0x10;
		vmstack_process_name(raw.proc, &f, NULL, &n, msg, sizeof(msg));
		CHECK(!strcmp(n.function, "lemur") && !strcmp(n.file, "/tmp/py dir/odd (v2):x\n.py") &&
		      n.line == 7 && n.start_line == 5 && n.flags == VMSTACK_NAME_AT_LINE &&
		      n.kind == VMSTACK_FRAME_SCRIPT);
	}
	vmstack_raw_free(&raw);
	/* A cut record is refused, not read past. */
	f = fopen(path, "w");
	fputs("VMSTACK-RAW 9\npid 1\ncomm x\nfreq 99\nlost 0\nduration 0\nmaps 0\nvmnames 0\nvmsites 0\n"
	      "vmacross 0\n"
	      "threads 0\nrecords\n1234567", f);
	fclose(f);
	CHECK(vmstack_raw_read(path, &raw, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "corrupt"));
	/* An older format is named, not misread. */
	f = fopen(path, "w");
	fputs("VMSTACK-RAW 5\npid 1\ncomm x\nmaps 0\nvmnames 0\nrecords\n", f);
	fclose(f);
	CHECK(vmstack_raw_read(path, &raw, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "another vmstack version"));
	/* Version 6 kept VM names as text: refused the same way. */
	f = fopen(path, "w");
	fputs("VMSTACK-RAW 6\npid 1\ncomm x\nfreq 99\nlost 0\nduration 0\nmaps 0\n"
	      "vmnames 1\n1234 0 f (a.py:3)\nthreads 0\nrecords\n", f);
	fclose(f);
	CHECK(vmstack_raw_read(path, &raw, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "another vmstack version") && strstr(msg, "record it again"));
	unlink(path);
	free(buf.data);
	vmstack_process_free(proc);
}
