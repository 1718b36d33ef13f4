// SPDX-License-Identifier: GPL-2.0
#include <libiberty/demangle.h>

#include "demangle.h"

char *vmstack_demangle(const char *name)
{
	/*
	 * DMGL_AUTO: Rust first (a legacy Rust name is a valid C++ name too,
	 * the hash as a namespace), then C++; never GNAT, D or Java, whose
	 * rules would take apart a C name. Without DMGL_VERBOSE a Rust
	 * name loses its hash, as the Rust tools print it; without
	 * DMGL_NO_RECURSE_LIMIT a hostile name cannot run the stack out.
	 */
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}
