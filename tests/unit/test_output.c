// SPDX-License-Identifier: GPL-2.0
/*
 * Frames as data and the output stage: the frame iterator on a sample's
 * words, profiles, collapsed stacks written and read back, the SVG, pprof,
 * the format table, and the recorder's option table against its help.
 */
#include <stdlib.h>
#include <string.h>
#define ZLIB_CONST
#include <zlib.h>

#include "abi.h"
#include "cli.h"
#include "frame.h"
#include "output/output.h"
#include "profile.h"
#include "stacks.h"
#include "unit.h"

/* One sample's words decode once, into what each frame is. */
UNIT_TEST(frames_decode)
{
	const uint64_t ips[] = {
		0xffffffff81000010ULL, 0xffffffff81000020ULL,	/* kernel, leaf first */
		0x401000,					/* user: where the kernel returns */
		vmstack_vmw(VMSTACK_VMW_JIT, 1, 0x7000),
		vmstack_vmw(VMSTACK_VMW_SCRIPT, 1, 0x5000), 0x5068,	/* and its PC */
		vmstack_vmw(VMSTACK_VMW_BUILTIN, 2, 0x6000),
		vmstack_vmw(VMSTACK_VMW_BROKEN, 0, 3),
		0x402000,
	};
	static const enum vmstack_frame_kind want[] = {
		VMSTACK_FRAME_KERNEL, VMSTACK_FRAME_KERNEL, VMSTACK_FRAME_NATIVE,
		VMSTACK_FRAME_JIT, VMSTACK_FRAME_SCRIPT, VMSTACK_FRAME_BUILTIN,
		VMSTACK_FRAME_CUT, VMSTACK_FRAME_NATIVE,
	};
	struct vmstack_frame_iter it;
	struct vmstack_frame f[16];
	int n = 0;

	vmstack_frames_start(&it, ips, 2, 7, VMSTACK_SF_IN_KERNEL | VMSTACK_SF_VM);
	while (n < 16 && vmstack_frames_next(&it, &f[n]))
		n++;
	CHECK(n == 8);
	for (n = 0; n < 8; n++)
		CHECK(f[n].kind == want[n]);
	CHECK(!f[0].ret && f[1].ret);
	/* In the kernel, the user PC is the return from it. */
	CHECK(f[2].ret && f[2].value == 0x401000);
	CHECK(f[3].vm == 1 && f[3].value == 0x7000);
	CHECK(f[4].vm == 1 && f[4].value == 0x5000 && f[4].pc == 0x5068);
	CHECK(f[5].vm == 2 && f[6].value == 3 && f[7].ret);
	/* A sample taken in user mode: its first user frame is exact. */
	vmstack_frames_start(&it, ips + 2, 0, 1, 0);
	CHECK(vmstack_frames_next(&it, &f[0]) && !f[0].ret);
	CHECK(!vmstack_frames_next(&it, &f[0]));
	/*
	 * A VM part cut for no sane state keeps the sampled native frame
	 * after the marker: exact (at a function's first instruction,
	 * named as a return address, it was the previous function's:
	 * LuaJIT's lj_vm_exit_interp shown as lj_vm_exit_handler). After
	 * a cut for bad frames (3: the walk went on from the caller's
	 * registers), a return address.
	 */
	{
		const uint64_t cut[] = { vmstack_vmw(VMSTACK_VMW_BROKEN, 0, VMSTACK_VMB_STATE),
					 0x5ee8e9, 0x401000 };

		vmstack_frames_start(&it, cut, 0, 3, VMSTACK_SF_VM_BROKEN);
		CHECK(vmstack_frames_next(&it, &f[0]) && f[0].kind == VMSTACK_FRAME_CUT);
		CHECK(vmstack_frames_next(&it, &f[1]) && !f[1].ret);
		CHECK(vmstack_frames_next(&it, &f[2]) && f[2].ret);
		vmstack_frames_start(&it, ips + 7, 0, 2, VMSTACK_SF_VM_BROKEN);
		CHECK(vmstack_frames_next(&it, &f[0]) && f[0].kind == VMSTACK_FRAME_CUT);
		CHECK(vmstack_frames_next(&it, &f[1]) && f[1].ret && f[1].value == 0x402000);
	}
}

static char *write_to_string(const struct vmstack_output *o, const struct vmstack_profile *p)
{
	struct vmstack_output_opts oo = { .title = "t" };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	CHECK(!o->write(p, &oo, out));
	fclose(out);
	return buf;
}

/* A stack of @n frames named @names, with kinds @kinds, counted @count times. */
static void add(struct vmstack_profile *p, const char *const *names,
		const enum vmstack_frame_kind *kinds, int n, uint64_t count)
{
	uint32_t ids[16];
	int i;

	for (i = 0; i < n; i++)
		ids[i] = vmstack_profile_frame(p, names[i], kinds[i]);
	vmstack_profile_add(p, ids, (uint32_t)n, 0, 0, count);
}

UNIT_TEST(folded_merges_sorts_and_reads_back)
{
	static const enum vmstack_frame_kind k[] = {
		VMSTACK_FRAME_ROOT, VMSTACK_FRAME_NATIVE, VMSTACK_FRAME_SCRIPT,
		VMSTACK_FRAME_JIT, VMSTACK_FRAME_KERNEL,
	};
	const char *a[] = { "prog", "main", "f.lua:3", "TRACE_1 f.lua:4", "sys_read" };
	const char *b[] = { "prog", "main", "a;x" };
	const struct vmstack_output *folded = vmstack_output_find("folded");
	struct vmstack_profile p, q;
	char *text, *again;
	FILE *in;
	int i;

	vmstack_profile_init(&p);
	for (i = 0; i < 1000; i++) {
		char name[32];
		const char *c[] = { "prog", name };

		snprintf(name, sizeof(name), "f%04d", i);
		add(&p, c, k, 2, 1);
	}
	add(&p, a, k, 5, 2);
	add(&p, b, k, 3, 5);
	add(&p, a, k, 5, 3);
	CHECK(p.nstacks == 1002 && p.samples == 1010);
	text = write_to_string(folded, &p);
	/* Sorted; ';' inside a frame cannot split it; kinds as suffixes. */
	CHECK(!strncmp(text, "prog;f0000 1\n", 13));
	CHECK(strstr(text, "prog;main;a:x_[vm] 5\n"));
	CHECK(strstr(text, "prog;main;f.lua:3_[vm];TRACE_1 f.lua:4_[j];sys_read_[k] 5\n"));
	/* Read back: the same kinds, the same text. */
	vmstack_profile_init(&q);
	in = fmemopen(text, strlen(text), "r");
	CHECK(vmstack_folded_read(&q, in) == 0);
	fclose(in);
	CHECK(q.samples == p.samples && q.nstacks == p.nstacks);
	CHECK(q.frames[vmstack_profile_frame(&q, "sys_read", VMSTACK_FRAME_KERNEL)].kind ==
	      VMSTACK_FRAME_KERNEL);
	CHECK(q.nframes == p.nframes);	/* no frame read under another kind */
	again = write_to_string(folded, &q);
	CHECK(!strcmp(text, again));
	/* Lines that are not stacks are counted, not taken. */
	{
		static char bad[] = "a;b 1\nno count here\nc;d x\n";

		in = fmemopen(bad, strlen(bad), "r");
	}
	CHECK(vmstack_folded_read(&q, in) == 2);
	fclose(in);
	free(text);
	free(again);
	vmstack_profile_free(&p);
	vmstack_profile_free(&q);
}

UNIT_TEST(svg_draws_kinds)
{
	static const enum vmstack_frame_kind k[] = {
		VMSTACK_FRAME_ROOT, VMSTACK_FRAME_NATIVE, VMSTACK_FRAME_SCRIPT,
		VMSTACK_FRAME_KERNEL,
	};
	const char *a[] = { "prog", "main", "f.lua:3", "sys_<read>" };
	const char *b[] = { "prog", "main", "g" };
	struct vmstack_output_opts inv = { .inverted = 1 };
	struct vmstack_profile p;
	char *svg, *prog, *g;
	size_t len = 0;
	FILE *out;

	vmstack_profile_init(&p);
	add(&p, a, k, 4, 7);
	add(&p, b, k, 3, 3);
	p.lost = 2;
	p.duration_ns = 1500000000;
	svg = write_to_string(vmstack_output_find("svg"), &p);
	CHECK(strstr(svg, "<svg") && strstr(svg, "</svg>"));
	CHECK(strstr(svg, ">t</text>") && strstr(svg, ">10 samples, 2 lost, 1.50 s</text>"));
	CHECK(strstr(svg, "f.lua:3_[vm] (7 samples, 70.00%)"));
	CHECK(strstr(svg, "sys_&lt;read&gt;_[k]"));
	/* What flamegraph.js moves boxes by: samples, not pixels. */
	CHECK(strstr(svg, "data-x=\"7\" data-n=\"3\" data-d=\"2\" data-name=\"g_[vm]\""));
	CHECK(strstr(svg, "<script><![CDATA[") && strstr(svg, "function zoom("));
	/* Root first: prog on the bottom row, below g (a VM frame). */
	prog = strstr(svg, "data-name=\"prog\"");
	g = strstr(svg, "data-name=\"g_[vm]\"");
	CHECK(prog && g && strtod(strstr(prog, " y=\"") + 4, NULL) >
	      strtod(strstr(g, " y=\"") + 4, NULL));
	free(svg);
	/* Inverted: merged from the leaf, the leaves on the top row. */
	svg = NULL;
	out = open_memstream(&svg, &len);
	CHECK(!vmstack_output_find("svg")->write(&p, &inv, out));
	fclose(out);
	CHECK(strstr(svg, "data-x=\"0\" data-n=\"3\" data-d=\"0\" data-name=\"g_[vm]\""));
	CHECK(strstr(svg, "data-x=\"3\" data-n=\"7\" data-d=\"0\" data-name=\"sys_&lt;read&gt;_[k]\""));
	prog = strstr(svg, "data-name=\"prog\"");
	g = strstr(svg, "data-name=\"g_[vm]\"");
	CHECK(prog && g && strtod(strstr(prog, " y=\"") + 4, NULL) >
	      strtod(strstr(g, " y=\"") + 4, NULL));
	CHECK(strstr(svg, "; inverted"));
	free(svg);
	vmstack_profile_free(&p);
	/* Nothing recorded: still a picture, saying so. */
	vmstack_profile_init(&p);
	svg = write_to_string(vmstack_output_find("svg"), &p);
	CHECK(strstr(svg, ">0 samples</text>") && strstr(svg, "</svg>"));
	free(svg);
	vmstack_profile_free(&p);
}

/* @p in pprof's format, inflated: the protobuf bytes (@len of them). */
static uint8_t *pprof_bytes(const struct vmstack_profile *p, size_t *len)
{
	static uint8_t out[65536];
	z_stream z = { 0 };
	char *gz = NULL;
	size_t gzlen = 0;
	FILE *f = open_memstream(&gz, &gzlen);

	CHECK(!vmstack_output_find("pprof")->write(p, NULL, f));
	fclose(f);
	CHECK(gzlen > 2 && (uint8_t)gz[0] == 0x1f && (uint8_t)gz[1] == 0x8b);
	z.next_in = (const Bytef *)gz;
	z.avail_in = (uInt)gzlen;
	z.next_out = out;
	z.avail_out = sizeof(out);
	CHECK(inflateInit2(&z, 16 + MAX_WBITS) == Z_OK);
	CHECK(inflate(&z, Z_FINISH) == Z_STREAM_END);
	inflateEnd(&z);
	free(gz);
	*len = sizeof(out) - z.avail_out;
	return out;
}

#define HAS(buf, len, bytes) (memmem(buf, len, bytes, sizeof(bytes) - 1) != NULL)

/* A stack of the @n frames named @names, counted @count times. */
static void add_named(struct vmstack_profile *p, const struct vmstack_name *names, int n,
		      uint64_t count)
{
	uint32_t ids[16];
	int i;

	for (i = 0; i < n; i++)
		ids[i] = vmstack_profile_intern(p, &names[i]);
	vmstack_profile_add(p, ids, (uint32_t)n, 0, 0, count);
}

#define ROOT(f) { VMSTACK_FRAME_ROOT, f, "", 0, 0, 0 }
#define NATIVE(f) { VMSTACK_FRAME_NATIVE, f, "", 0, 0, 0 }
#define LUA(f, file, line) { VMSTACK_FRAME_SCRIPT, f, file, line, line, 0 }
#define PY(f, file, line, first) { VMSTACK_FRAME_SCRIPT, f, file, line, first, VMSTACK_NAME_AT_LINE }

/* The protobuf's bytes, field by field (profile.proto's numbers). */
UNIT_TEST(pprof_encodes_profile_proto)
{
	const struct vmstack_name a[] = {
		ROOT("prog"), NATIVE("main"), LUA("f.lua:3", "f.lua", 3), PY("g", "a.py", 12, 10),
		{ VMSTACK_FRAME_JIT, "TRACE_1 f.lua:4", "f.lua", 4, 4, 0 },
		{ VMSTACK_FRAME_KERNEL, "sys_read", "", 0, 0, 0 },
	};
	const struct vmstack_name b[] = {
		ROOT("prog"), NATIVE("main"), LUA("f.lua:3", "f.lua", 3), PY("g", "a.py", 13, 10),
	};
	const struct vmstack_name c[] = {
		ROOT("prog"), NATIVE("main"), LUA("work.lua:0", "work.lua", 0),
	};
	struct vmstack_profile p;
	uint8_t *pb;
	size_t len;

	vmstack_profile_init(&p);
	add_named(&p, a, 6, 3);
	add_named(&p, b, 4, 5);
	p.freq = 999;
	pb = pprof_bytes(&p, &len);
	/* sample_type samples/count, cpu/nanoseconds; period_type; period 1001001. */
	CHECK(len > 30 && !memcmp(pb, "\x0a\x04\x08\x01\x10\x02\x0a\x04\x08\x03\x10\x04"
				  "\x5a\x04\x08\x03\x10\x04\x60\xa9\x8c\x3d", 22));
	/* The string table, "" first. */
	CHECK(HAS(pb, len, "\x32\x00\x32\x07samples\x32\x05" "count\x32\x03" "cpu"));
	/* Stack b leaf first (locations 7, 3, 2, 1), 5 samples, 5005005 ns. */
	CHECK(HAS(pb, len, "\x12\x0d\x0a\x04\x07\x03\x02\x01\x12\x05\x05\xcd\xbd\xb1\x02"));
	/* CPython's name is a function g in a.py at a line; Lua's keeps its name. */
	CHECK(HAS(pb, len, "\x32\x01g\x32\x04" "a.py"));
	CHECK(HAS(pb, len, "\x32\x07" "f.lua:3\x32\x05" "f.lua"));
	CHECK(HAS(pb, len, "\x32\x08[kernel]") && HAS(pb, len, "\x32\x05[jit]"));
	vmstack_profile_free(&p);
	/* No rate: counts alone. A main chunk has line 0, still a line. */
	vmstack_profile_init(&p);
	add_named(&p, c, 3, 5);
	pb = pprof_bytes(&p, &len);
	CHECK(!memcmp(pb, "\x0a\x04\x08\x01\x10\x02\x6a", 7));
	CHECK(!HAS(pb, len, "\x03" "cpu"));
	CHECK(HAS(pb, len, "\x32\x0awork.lua:0\x32\x08work.lua"));
	vmstack_profile_free(&p);
}

/*
 * Names' parts reach pprof as its fields, whatever they hold (a Python
 * file with spaces, parentheses and colons in its name), and collapsed
 * stacks show them as text; an inlined call and the function it is
 * inlined in are one Location, the call's Line first.
 */
UNIT_TEST(pprof_writes_name_parts)
{
	const struct vmstack_name a[] = {
		ROOT("prog"),
		{ VMSTACK_FRAME_NATIVE, "main", "/src/m.c", 10, 0, VMSTACK_NAME_AT_LINE },
		{ VMSTACK_FRAME_NATIVE, "inl", "/src/m.h", 3, 0,
		  VMSTACK_NAME_AT_LINE | VMSTACK_NAME_INLINED },
		PY("lemur", "/tmp/py dir/odd (v2):x.py", 7, 5),
	};
	struct vmstack_profile p;
	uint8_t *pb;
	size_t len;
	char *text;

	vmstack_profile_init(&p);
	add_named(&p, a, 4, 2);
	text = write_to_string(vmstack_output_find("folded"), &p);
	CHECK(!strcmp(text, "prog;main (m.c:10);inl (inlined) (m.h:3);"
		      "lemur (/tmp/py dir/odd (v2):x.py:7)_[vm] 2\n"));
	free(text);
	pb = pprof_bytes(&p, &len);
	CHECK(HAS(pb, len, "\x32\x05lemur\x32\x19/tmp/py dir/odd (v2):x.py"));
	/* Function 4: lemur (string 9), in that file (10), from line 5. */
	CHECK(HAS(pb, len, "\x2a\x0a\x08\x04\x10\x09\x18\x09\x20\x0a\x28\x05"));
	/* Its Location: Function 4 at line 7. */
	CHECK(HAS(pb, len, "\x22\x0a\x08\x04\x10\x03\x22\x04\x08\x04\x10\x07"));
	/* The sample, leaf first: lemur, main with inl in it (Location 5), prog. */
	CHECK(HAS(pb, len, "\x12\x08\x0a\x03\x04\x05\x01\x12\x01\x02"));
	/* Location 5: inl's Function (3) at line 3, then main's (2) at line 10. */
	CHECK(HAS(pb, len, "\x22\x10\x08\x05\x10\x01\x22\x04\x08\x03\x10\x03"
		  "\x22\x04\x08\x02\x10\x0a"));
	vmstack_profile_free(&p);
}

UNIT_TEST(output_table)
{
	const struct vmstack_output_opts inv = { .inverted = 1 }, plain = { 0 };
	const struct vmstack_output *const *o;

	CHECK(vmstack_output_for_path("x/y.svg") == vmstack_output_find("svg"));
	CHECK(vmstack_output_for_path("x.pb.gz") == vmstack_output_find("pprof"));
	CHECK(vmstack_output_for_path("x.folded") == vmstack_output_find("folded"));
	CHECK(vmstack_output_for_path("x.txt") == NULL);
	CHECK(vmstack_output_find("nonesuch") == NULL);
	/* Only the flame graph draws --inverted; the others say so. */
	CHECK(!vmstack_output_refuses(vmstack_output_find("svg"), &inv));
	CHECK(!vmstack_output_refuses(vmstack_output_find("pprof"), &plain));
	CHECK(!strcmp(vmstack_output_refuses(vmstack_output_find("folded"), &inv),
		      "--inverted applies to svg only"));
	CHECK(vmstack_output_refuses(vmstack_output_find("pprof"), &inv));
	for (o = vmstack_outputs; *o; o++)
		CHECK((*o)->name && (*o)->suffix && (*o)->help && (*o)->write &&
		      strstr(vmstack_output_names(), (*o)->name));
}

UNIT_TEST(stacks_count_distinct)
{
	struct {
		struct vmstack_rec_sample rec;
		uint64_t ips[3];
	} r = { 0 };
	struct vmstack_stacks st;
	int i;

	vmstack_stacks_init(&st, 0);
	r.rec.nr_user = 3;
	for (i = 0; i < 5000; i++) {
		r.rec.tid = i;			/* ignored unless per thread */
		r.ips[0] = 0x1000 + i % 700;
		r.ips[1] = 0x2000;
		r.ips[2] = 0x3000;
		vmstack_stacks_add(&st, &r.rec);
	}
	CHECK(st.samples == 5000);
	CHECK(st.n == 700);
	vmstack_stacks_free(&st);
}

/* Stacks are told apart by every word and by pid, tid and kernel/user split. */
UNIT_TEST(stacks_counted_by_content_across_growth)
{
	struct {
		struct vmstack_rec_sample rec;
		uint64_t ips[4];
	} r = { 0 };
	struct vmstack_stacks st;
	uint64_t i, total = 0;
	size_t k;

	vmstack_stacks_init(&st, 1);
	r.rec.hdr.type = VMSTACK_REC_SAMPLE;
	r.rec.hdr.size = sizeof(r);
	r.rec.nr_user = 4;
	/* 5000 stacks that differ in one word: the table grows past 1024. */
	for (i = 0; i < 5000; i++) {
		r.ips[0] = 0x400000 + 16 * i;
		CHECK(vmstack_stacks_add(&st, &r.rec) == 1);
	}
	for (i = 0; i < 5000; i++) {
		r.ips[0] = 0x400000 + 16 * i;
		CHECK(vmstack_stacks_add(&st, &r.rec) == 0);
	}
	r.ips[0] = 0x400000;
	r.rec.tid = 2;
	CHECK(vmstack_stacks_add(&st, &r.rec) == 1);
	r.rec.pid = 3;
	CHECK(vmstack_stacks_add(&st, &r.rec) == 1);
	r.rec.nr_kernel = 1;
	r.rec.nr_user = 3;
	CHECK(vmstack_stacks_add(&st, &r.rec) == 1);
	CHECK(st.n == 5003 && st.samples == 10003);
	for (k = 0; k < st.nslots; k++)
		if (st.slots[k])
			total += st.slots[k]->count;
	CHECK(total == 10003);
	vmstack_stacks_free(&st);
}

static int take_all(void *arg, int key, const char *val)
{
	(void)val;
	*(int *)arg += key;
	return 0;
}

/* One table gives both getopt_long and --help: each option is in both. */
UNIT_TEST(cli_table_is_the_help)
{
	static const struct cli_option opts[] = {
		{ "alpha", 'a', "N", "the first\nover two lines" },
		{ "beta", CLI_LONG_ONLY, NULL, "the second" },
		{ NULL, 0, NULL, NULL },
	};
	static const struct cli c = { .tool = "t", .usage = "[options]", .about = "About.",
				      .options = opts };
	char *argv[] = { "t", "-a", "1", "--beta", "rest", NULL };
	char *help = NULL, want[64];
	size_t len = 0;
	FILE *f = open_memstream(&help, &len);
	unsigned int v;
	int sum = 0;

	cli_help(&c, f);
	fclose(f);
	CHECK(strstr(help, "usage: t [options]") && strstr(help, "  -a, --alpha N"));
	CHECK(strstr(help, "      --beta") && strstr(help, "over two lines"));
	CHECK(strstr(help, "  -h, --help") && strstr(help, "      --version"));
	free(help);
	/* tests/guest/t_status.sh reads the ABI at the end of this line. */
	f = open_memstream(&help, &len);
	cli_version(&c, f);
	fclose(f);
	snprintf(want, sizeof(want), " (ABI %d.%d)\n", VMSTACK_ABI_MAJOR, VMSTACK_ABI_MINOR);
	CHECK(!strncmp(help, "t ", 2) && len > strlen(want) &&
	      !strcmp(help + len - strlen(want), want));
	free(help);
	CHECK(cli_parse(&c, 5, argv, take_all, &sum) == 4);
	CHECK(sum == 'a' + CLI_LONG_ONLY);
	CHECK(cli_uint("12", 1, 20, &v) == 0 && v == 12);
	CHECK(cli_uint("-1", 0, 20, &v) == -1 && cli_uint("21", 1, 20, &v) == -1);
}

/* A module of another ABI major is refused, and the message says which to load. */
UNIT_TEST(abi_major_refused)
{
	char msg[256];

	CHECK(vmstack_abi_check(VMSTACK_ABI_MAJOR, 0, "x", msg, sizeof(msg)) == 0);
	CHECK(vmstack_abi_check(VMSTACK_ABI_MAJOR, VMSTACK_ABI_MINOR + 1, "x", msg,
				sizeof(msg)) == 0);
	CHECK(vmstack_abi_check(3, 6, "0.2.0", msg, sizeof(msg)) < 0);
	CHECK(strstr(msg, "the module speaks ABI 3") && strstr(msg, "needs ABI 4") &&
	      strstr(msg, "0.2.0"));
}
