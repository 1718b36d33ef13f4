// SPDX-License-Identifier: GPL-2.0
/*
 * pprof's format: a gzipped profile.proto (github.com/google/pprof,
 * proto/profile.proto; the field numbers below are that file's), as
 * `go tool pprof`, Pyroscope, Parca or Grafana read it.
 *
 * Encoded by hand: the messages written here need varints,
 * length-delimited fields and packed varints, some 50 lines below, where
 * libprotobuf-c would take a copy of the .proto, protoc-c at build time,
 * its generated .pb-c.c and a C struct filled per message for the same
 * bytes. zlib gzips them.
 *
 * What the profile gives: one Location per distinct frame, with one Line
 * whose Function is the frame's function, in its file, from its first
 * line, the Line at its line: the parts its namer gave (user/frame.h),
 * never taken apart from a text. A native frame named with --lines and
 * the calls inlined there are one Location whose Lines are the inlined
 * calls, innermost first, then the function they are inlined into. A
 * native frame's Location is in the Mapping of its file (path, build-id,
 * addresses as the process mapped it), at the address the frame stands
 * for: its function's entry, as a frame is a function (named) or one
 * address (unnamed); other frames' kind is their Location's mapping,
 * "[kernel]", "[vm]" or "[jit]", and native frames in no file and the
 * root have one with no file. Each sample is a
 * stack, leaf first, with its count and, when the rate is known, its CPU
 * time (1e9 / rate nanoseconds a sample), its process's labels "pid" and
 * "comm" (when the profile knows them: not from a folded file), and with
 * stacks per thread the labels "thread" (its id) and "thread_name";
 * comments give the recording's totals.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#define ZLIB_CONST
#include <zlib.h>

#include "output.h"
#include "threads.h"
#include "util.h"

/* profile.proto's field numbers, by message. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD,
	PROFILE_COMMENT,
};
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL };
enum { LABEL_KEY = 1, LABEL_STR, LABEL_NUM };
enum {
	MAPPING_ID = 1, MAPPING_MEMORY_START, MAPPING_MEMORY_LIMIT, MAPPING_FILE_OFFSET,
	MAPPING_FILENAME, MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS,
};
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE };
enum { LINE_FUNCTION_ID = 1, LINE_LINE };
enum {
	FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME, FUNCTION_FILENAME,
	FUNCTION_START_LINE,
};

/* Wire types: a varint, or a length and that many bytes. */
enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

struct pb {
	uint8_t *b;
	size_t n, cap;
};

static void pb_bytes(struct pb *p, const void *s, size_t n)
{
	if (p->n + n > p->cap) {
		p->cap = 2 * (p->n + n) + 256;
		p->b = xrealloc(p->b, p->cap);
	}
	memcpy(p->b + p->n, s, n);
	p->n += n;
}

static void pb_varint(struct pb *p, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;

	for (; v > 0x7f; v >>= 7)
		b[n++] = (uint8_t)(v | 0x80);
	b[n++] = (uint8_t)v;
	pb_bytes(p, b, n);
}

/* A varint field; 0 is every field's default, so it is left out. */
static void pb_uint(struct pb *p, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_varint(p, (uint64_t)field << 3 | WIRE_VARINT);
	pb_varint(p, v);
}

/* A length-delimited field: a string, a message, packed varints. */
static void pb_len(struct pb *p, unsigned int field, const void *s, size_t n)
{
	pb_varint(p, (uint64_t)field << 3 | WIRE_LEN);
	pb_varint(p, n);
	pb_bytes(p, s, n);
}

/* Message @m as field @field of @p; @m is emptied for the next one. */
static void pb_msg(struct pb *p, unsigned int field, struct pb *m)
{
	pb_len(p, field, m->b, m->n);
	m->n = 0;
}

/*
 * Distinct keys (a string's bytes, a function's numbers) numbered from 0
 * in the order first seen: the string table, the functions.
 */
struct keys {
	struct key {
		void *bytes;
		size_t len;
	} *v;
	size_t n, cap;
	size_t *slots, nslots;	/* number + 1, by hash */
};

static size_t key_slot(const struct keys *t, const void *bytes, size_t len)
{
	size_t j = hash_bytes(bytes, len, 0) & (t->nslots - 1);

	for (; t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
		const struct key *k = &t->v[t->slots[j] - 1];

		if (k->len == len && !memcmp(k->bytes, bytes, len))
			break;
	}
	return j;
}

static uint64_t key_number(struct keys *t, const void *bytes, size_t len)
{
	size_t i, j;

	if (2 * (t->n + 1) > t->nslots) {
		free(t->slots);
		t->nslots = t->nslots ? 2 * t->nslots : 256;
		t->slots = xcalloc(t->nslots, sizeof(*t->slots));
		for (i = 0; i < t->n; i++)
			t->slots[key_slot(t, t->v[i].bytes, t->v[i].len)] = i + 1;
	}
	j = key_slot(t, bytes, len);
	if (t->slots[j])
		return t->slots[j] - 1;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	t->v[t->n].bytes = xmalloc(len ? len : 1);
	memcpy(t->v[t->n].bytes, bytes, len);
	t->v[t->n].len = len;
	t->slots[j] = ++t->n;
	return t->n - 1;
}

static void keys_free(struct keys *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].bytes);
	free(t->v);
	free(t->slots);
}

/* A Function: indexes into the string table, and its first line. */
struct function {
	uint64_t name, file, start_line;
};

/*
 * A kind's mapping is its class's (id: the class + 1), then the files' (id:
 * NR_CLASS_MAPPINGS + the profile's map number). Native code's has no file
 * and comes first: pprof takes the first mapping for the program's and
 * would show "File: [kernel]", or the file of the first leaf, libc's.
 */
static const char *const class_mappings[] = {
	[VMSTACK_CLASS_NATIVE] = "",
	[VMSTACK_CLASS_KERNEL] = "[kernel]",
	[VMSTACK_CLASS_VM] = "[vm]",
	[VMSTACK_CLASS_JIT] = "[jit]",
};
#define NR_CLASS_MAPPINGS (sizeof(class_mappings) / sizeof(*class_mappings))

struct writer {
	struct pb out, msg, sub;
	/* Inlined calls' Locations: keyed by their frames' ids, outermost first. */
	struct keys strings, functions, inlined;
	uint64_t nframes;	/* their ids follow the frames' */
};

static uint64_t str_n(struct writer *w, const char *s, size_t len)
{
	return key_number(&w->strings, s, len);
}

static uint64_t str(struct writer *w, const char *s)
{
	return str_n(w, s, strlen(s));
}

static void value_type(struct writer *w, unsigned int field, const char *type,
		       const char *unit)
{
	pb_uint(&w->msg, VALUE_TYPE_TYPE, str(w, type));
	pb_uint(&w->msg, VALUE_TYPE_UNIT, str(w, unit));
	pb_msg(&w->out, field, &w->msg);
}

/*
 * A numeric label @key = @num and, when known, its name @name_key = @name:
 * the process (pid, comm), for a collector to slice by service, and the
 * thread (thread, thread_name).
 */
static void id_labels(struct writer *w, const char *key, uint32_t num,
		      const char *name_key, const char *name)
{
	pb_uint(&w->sub, LABEL_KEY, str(w, key));
	pb_uint(&w->sub, LABEL_NUM, num);
	pb_msg(&w->msg, SAMPLE_LABEL, &w->sub);
	if (name) {
		pb_uint(&w->sub, LABEL_KEY, str(w, name_key));
		pb_uint(&w->sub, LABEL_STR, str(w, name));
		pb_msg(&w->msg, SAMPLE_LABEL, &w->sub);
	}
}

/* Is frame @k of @s a call inlined into frame @k - 1? */
static int inlined(const struct vmstack_profile *p, const struct vmstack_pstack *s, uint32_t k)
{
	return k > 0 && p->frames[s->frames[k]].kind == VMSTACK_FRAME_NATIVE &&
	       (p->frames[s->frames[k]].flags & VMSTACK_NAME_INLINED) &&
	       p->frames[s->frames[k - 1]].kind == VMSTACK_FRAME_NATIVE;
}

/*
 * The Location of frame @k of @s (root first) and the calls inlined into
 * the frame it is inlined in (--lines): the frame's id + 1 for a frame
 * alone, else that of its group. *@outer: the group's first frame.
 */
static uint64_t location_of(struct writer *w, const struct vmstack_profile *p,
			    const struct vmstack_pstack *s, uint32_t k, uint32_t *outer)
{
	uint32_t a = k;

	while (inlined(p, s, a))
		a--;
	*outer = a;
	if (a == k)
		return (uint64_t)s->frames[k] + 1;
	return w->nframes + 1 +
	       key_number(&w->inlined, &s->frames[a], (k - a + 1) * sizeof(*s->frames));
}

static void samples(struct writer *w, const struct vmstack_profile *p, uint64_t period)
{
	const struct vmstack_pproc *proc;
	const struct vmstack_pstack *s;
	uint32_t k, outer;
	size_t i;

	for (i = 0; i < p->nslots; i++) {
		s = vmstack_profile_slot(p, i);
		if (!s)
			continue;
		/* Leaf first. */
		for (k = s->n; k > 0; k = outer)
			pb_varint(&w->sub, location_of(w, p, s, k - 1, &outer));
		pb_msg(&w->msg, SAMPLE_LOCATION_ID, &w->sub);
		/* Off CPU or wall, a count is microseconds; pprof's unit is ns. */
		pb_varint(&w->sub, p->off_cpu || p->wall ? s->count * 1000 : s->count);
		if (period)
			pb_varint(&w->sub, s->count * period);
		pb_msg(&w->msg, SAMPLE_VALUE, &w->sub);
		proc = s->pid ? vmstack_profile_proc(p, s->pid) : NULL;
		if (s->pid)
			id_labels(w, "pid", s->pid, "comm", proc ? proc->comm : NULL);
		/* For a collector to slice by service. */
		if (proc && *proc->cgroup) {
			pb_uint(&w->sub, LABEL_KEY, str(w, "cgroup"));
			pb_uint(&w->sub, LABEL_STR, str(w, proc->cgroup));
			pb_msg(&w->msg, SAMPLE_LABEL, &w->sub);
		}
		if (p->threads && s->tid)
			id_labels(w, "thread", s->tid, "thread_name",
				  vmstack_threads_name(p->threads, s->tid));
		pb_msg(&w->out, PROFILE_SAMPLE, &w->msg);
	}
}

/* Frame @f as a Line of the Location under way (in w->msg). */
static void line(struct writer *w, const struct vmstack_pframe *f)
{
	struct function fn = {
		.name = str(w, f->function), .file = str(w, f->file),
		.start_line = f->start_line,
	};

	pb_uint(&w->sub, LINE_FUNCTION_ID, key_number(&w->functions, &fn, sizeof(fn)) + 1);
	pb_uint(&w->sub, LINE_LINE, f->line);
	pb_msg(&w->msg, LOCATION_LINE, &w->sub);
}

/* Location @id at frame @f's place; returns the mapping it uses, a bit per class. */
static unsigned int location(struct writer *w, uint64_t id, const struct vmstack_pframe *f)
{
	unsigned int class = vmstack_kind_styles[f->kind].class;

	pb_uint(&w->msg, LOCATION_ID, id);
	if (f->map) {
		pb_uint(&w->msg, LOCATION_MAPPING_ID, NR_CLASS_MAPPINGS + f->map);
		pb_uint(&w->msg, LOCATION_ADDRESS, f->addr);
		return 0;
	}
	pb_uint(&w->msg, LOCATION_MAPPING_ID, class + 1);
	return 1u << class;
}

/*
 * One Location per frame, then one per group of inlined calls; returns the
 * mappings they use, a bit per class.
 */
static unsigned int locations(struct writer *w, const struct vmstack_profile *p)
{
	unsigned int used = 0;
	const uint32_t *ids;
	size_t i, n;

	for (i = 0; i < p->nframes; i++) {
		used |= location(w, i + 1, &p->frames[i]);
		line(w, &p->frames[i]);
		pb_msg(&w->out, PROFILE_LOCATION, &w->msg);
	}
	for (i = 0; i < w->inlined.n; i++) {
		ids = w->inlined.v[i].bytes;
		n = w->inlined.v[i].len / sizeof(*ids);
		/* At the outer function's place; the innermost call first. */
		used |= location(w, w->nframes + 1 + i, &p->frames[ids[0]]);
		while (n)
			line(w, &p->frames[ids[--n]]);
		pb_msg(&w->out, PROFILE_LOCATION, &w->msg);
	}
	return used;
}

static void mappings(struct writer *w, const struct vmstack_profile *p,
		     unsigned int used)
{
	const struct vmstack_pmap *m;
	unsigned int class;
	size_t i;

	for (class = 0; class < NR_CLASS_MAPPINGS; class++) {
		if (!(used & 1u << class))
			continue;
		pb_uint(&w->msg, MAPPING_ID, class + 1);
		pb_uint(&w->msg, MAPPING_FILENAME, str(w, class_mappings[class]));
		/* Named already: nothing for pprof to look up. */
		pb_uint(&w->msg, MAPPING_HAS_FUNCTIONS, 1);
		pb_msg(&w->out, PROFILE_MAPPING, &w->msg);
	}
	for (i = 0; i < p->nmaps; i++) {
		m = &p->maps[i];
		pb_uint(&w->msg, MAPPING_ID, NR_CLASS_MAPPINGS + i + 1);
		pb_uint(&w->msg, MAPPING_MEMORY_START, m->start);
		pb_uint(&w->msg, MAPPING_MEMORY_LIMIT, m->limit);
		pb_uint(&w->msg, MAPPING_FILE_OFFSET, m->offset);
		pb_uint(&w->msg, MAPPING_FILENAME, str(w, m->path));
		pb_uint(&w->msg, MAPPING_BUILD_ID, str(w, m->build_id));
		pb_uint(&w->msg, MAPPING_HAS_FUNCTIONS, 1);
		pb_msg(&w->out, PROFILE_MAPPING, &w->msg);
	}
}

static void functions(struct writer *w)
{
	struct function fn;
	size_t i;

	for (i = 0; i < w->functions.n; i++) {
		memcpy(&fn, w->functions.v[i].bytes, sizeof(fn));
		pb_uint(&w->msg, FUNCTION_ID, i + 1);
		pb_uint(&w->msg, FUNCTION_NAME, fn.name);
		pb_uint(&w->msg, FUNCTION_SYSTEM_NAME, fn.name);
		pb_uint(&w->msg, FUNCTION_FILENAME, fn.file);
		pb_uint(&w->msg, FUNCTION_START_LINE, fn.start_line);
		pb_msg(&w->out, PROFILE_FUNCTION, &w->msg);
	}
}

/* @len bytes gzipped to @out; 0, or -1. */
static int gzip_to(FILE *out, const uint8_t *data, size_t len)
{
	static uint8_t buf[65536];
	z_stream z = { .next_in = data, .avail_in = (uInt)len };
	size_t n;
	int ret;

	/* More than 4 GiB: more than zlib takes at once, and no profile. */
	if (len > UINT_MAX ||
	    deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		ret = deflate(&z, Z_FINISH);
		n = sizeof(buf) - z.avail_out;
		if ((ret != Z_OK && ret != Z_STREAM_END) || fwrite(buf, 1, n, out) != n)
			ret = Z_ERRNO;
	} while (ret == Z_OK);
	deflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : -1;
}

static int pprof_write(const struct vmstack_profile *p,
		       const struct vmstack_output_opts *o, FILE *out)
{
	uint64_t period = p->freq ? (1000000000ULL + p->freq / 2) / p->freq : 0;
	struct writer w = { 0 };
	char text[128];
	size_t i;
	int err;

	(void)o;
	w.nframes = p->nframes;
	str(&w, "");		/* string_table[0] must be "" */
	if (p->off_cpu)
		value_type(&w, PROFILE_SAMPLE_TYPE, "off-cpu", "nanoseconds");
	else if (p->wall)
		value_type(&w, PROFILE_SAMPLE_TYPE, "wall", "nanoseconds");
	else
		value_type(&w, PROFILE_SAMPLE_TYPE, "samples", "count");
	if (period) {
		value_type(&w, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
		value_type(&w, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
		pb_uint(&w.out, PROFILE_PERIOD, period);
	}
	if (p->off_cpu)
		snprintf(text, sizeof(text),
			 "vmstack: where threads waited, %.3f s in all, %" PRIu64 " switch-outs lost",
			 p->samples / 1e6, p->lost);
	else if (p->wall)
		snprintf(text, sizeof(text),
			 "vmstack: where threads ran or waited, %.3f s in all, %" PRIu64
			 " samples and switch-outs lost", p->samples / 1e6, p->lost);
	else
		snprintf(text, sizeof(text), "vmstack: %" PRIu64 " samples, %" PRIu64 " lost",
			 p->samples, p->lost);
	pb_varint(&w.sub, str(&w, text));
	if (p->freq) {
		snprintf(text, sizeof(text), "vmstack: %u samples per second per CPU", p->freq);
		pb_varint(&w.sub, str(&w, text));
	}
	pb_msg(&w.out, PROFILE_COMMENT, &w.sub);
	samples(&w, p, period);
	mappings(&w, p, locations(&w, p));
	functions(&w);
	/* Last: every string is in by now. */
	for (i = 0; i < w.strings.n; i++)
		pb_len(&w.out, PROFILE_STRING_TABLE, w.strings.v[i].bytes, w.strings.v[i].len);
	err = gzip_to(out, w.out.b, w.out.n);
	free(w.out.b);
	free(w.msg.b);
	free(w.sub.b);
	keys_free(&w.strings);
	keys_free(&w.functions);
	keys_free(&w.inlined);
	return err;
}

const struct vmstack_output vmstack_output_pprof = {
	.name = "pprof",
	.suffix = ".pb.gz",
	.help = "pprof's profile.proto, gzipped (go tool pprof, Pyroscope)",
	.write = pprof_write,
};
