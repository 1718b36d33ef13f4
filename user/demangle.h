/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbol names made readable: C++ (the Itanium ABI's "_Z..." names, as GCC
 * and Clang write them) and Rust (legacy "_ZN...17h<hash>E" and v0
 * "_R..." names), by libiberty's demangler, the one GDB and binutils use.
 */
#ifndef VMSTACK_DEMANGLE_H
#define VMSTACK_DEMANGLE_H

/*
 * @name demangled, with a function's parameter types and qualifiers
 * ("ns::f(int) const", "std::vector<int, std::allocator<int> >::push_back(int const&)"),
 * a Rust path without its hash ("core::fmt::write"), malloc'd; NULL if
 * @name is not a mangled name (C's names, assembly's) or not a valid one.
 */
char *vmstack_demangle(const char *name);

#endif
