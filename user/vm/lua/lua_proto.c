// SPDX-License-Identifier: GPL-2.0
#include "util.h"
#include "vm/lua/lua_name.h"
#include "vm/lua/lua_proto.h"

int vmstack_lua_string(const struct lua_proto_facts *F, int pid, uint64_t ts, char *buf,
		       size_t len)
{
	uint64_t slen = 0;
	uint8_t tt, shr;

	if (!len || read_target(pid, ts + F->gc_tt, &tt, 1) || (tt & 0x0f) != F->str_tag)
		return -1;
	if (F->shr_tt && tt == F->shr_tt) {
		if (read_target(pid, ts + F->ts_shrlen, &shr, 1))
			return -1;
		slen = shr;
	} else if (read_target(pid, ts + F->ts_len, &slen, 8)) {
		return -1;
	}
	if (slen >= len)
		slen = len - 1;
	if (read_target(pid, ts + F->ts_contents, buf, slen))
		return -1;
	buf[slen] = 0;
	return 0;
}

int vmstack_lua_proto_name(const struct lua_proto_facts *F, int pid, uint64_t proto,
			   struct vmstack_name_buf *out)
{
	uint64_t src;
	int32_t first;
	char name[200];

	if (read_target(pid, proto + F->p_source, &src, 8) ||
	    read_target(pid, proto + F->p_linedefined, &first, 4))
		return -1;
	/* A stripped dump has no source (lua_getinfo says "=?"). */
	if (!src) {
		vmstack_lua_name(out, "", "=?", first);
		return 0;
	}
	if (vmstack_lua_string(F, pid, src, name, sizeof(name)))
		return -1;
	vmstack_lua_name(out, "", name, first);
	return 0;
}
