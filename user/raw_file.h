/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw recordings: the samples exactly as the rings held them, plus what is
 * needed to name them later (pid, process name, every mapping seen) and
 * the recording's rate and losses. Text header, then the records:
 *   VMSTACK-RAW 9\n pid PID\n comm NAME\n freq HZ\n lost N\n duration NS\n
 *   maps N\n <N /proc/PID/maps lines>
 *   vmnames M\n <M names of VM frames, each
 *     "IDENTITY(hex) PC(hex) LINE START_LINE FLAGS FUNCTION_LEN FILE_LEN "
 *     then FUNCTION_LEN bytes of function, FILE_LEN of file, and "\n":
 *     the parts (user/frame.h) as the runtime's namer gave them, whatever
 *     bytes they hold>
 *   vmsites S\n <S call-site names (vm_sites.h), each "CALLEE(hex)
 *     CALLEE_PC(hex) CALLER(hex) CALLER_PC(hex) NAME_LEN " then NAME_LEN
 *     bytes and "\n">
 *   vmacross A\n <A lines "VM MASK BITS STOP_LO STOP_HI" (hex): VM's script
 *     frames whose pc & MASK is BITS are named across native frames up to
 *     one in [STOP_LO, STOP_HI) (frame.h's struct vmstack_vm_across)>
 *   threads T\n <T lines "TID NAME" of the threads sampled>
 *   records\n <struct vmstack_rec_sample ...> to the end of the file
 */
#ifndef VMSTACK_RAW_FILE_H
#define VMSTACK_RAW_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vmstack.h>

#include "process.h"
#include "threads.h"

struct vmstack_raw_buf {
	uint8_t *data;
	size_t len, cap;
};

void vmstack_raw_append(struct vmstack_raw_buf *b,
			const struct vmstack_rec_sample *rec);
/* What a recording says of itself. */
struct vmstack_raw_head {
	int pid;
	char comm[64];
	unsigned int freq;	/* samples per second per CPU */
	uint64_t lost;
	uint64_t duration_ns;	/* from the session's start to its end */
};

int vmstack_raw_write(const char *path, const struct vmstack_raw_head *h,
		      struct vmstack_process *proc,
		      const struct vmstack_threads *threads,
		      const struct vmstack_raw_buf *b);

struct vmstack_raw {
	struct vmstack_raw_head head;
	struct vmstack_process *proc;	/* built from the saved mappings */
	struct vmstack_threads threads;
	struct vmstack_raw_buf records;	/* vmstack_raw_read's, all of them */
	/* vmstack_raw_open's: the file at the records, a window on them. */
	FILE *f;
	struct vmstack_raw_buf window;
	size_t window_off;
};

/*
 * The whole recording, every record checked. 0, or -1 with a message in
 * err.
 */
int vmstack_raw_read(const char *path, struct vmstack_raw *raw, char *err,
		     size_t len);
/*
 * All but the records, which vmstack_raw_next gives one at a time from a
 * window of the file: a recording of any length in a fixed memory, and
 * no page of it touched twice. 0, or -1 with a message in err.
 */
int vmstack_raw_open(const char *path, struct vmstack_raw *raw, char *err,
		     size_t len);
/*
 * The next record, checked, in *rec (valid until the next call): 1; 0 at
 * the end; -1 with a message in err for a corrupt or truncated one.
 */
int vmstack_raw_next(struct vmstack_raw *raw, const struct vmstack_rec_sample **rec,
		     char *err, size_t len);
void vmstack_raw_free(struct vmstack_raw *raw);

#endif
