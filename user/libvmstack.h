/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libvmstack: how a program describes its own VM to vmstack-record, so
 * that the VM's frames appear in the program's stacks without kernel code.
 * The descriptor is text (Documentation/vm-descriptor.md); registering it
 * appends it to /tmp/vmstack-PID.vm, which vmstack-record reads when it
 * starts and whenever the process maps something new, as perf reads
 * /tmp/perf-PID.map. The file is removed when the process exits.
 */
#ifndef VMSTACK_LIBVMSTACK_H
#define VMSTACK_LIBVMSTACK_H

/* 0, or -1 with errno set. @text holds one or more whole blocks. */
int vmstack_register_vm(const char *text);

#endif
