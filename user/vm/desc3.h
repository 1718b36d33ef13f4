/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ABI 3's VM descriptor, kept by the tools as the runtimes' structured
 * form (user/vm/luajit/luajit.c, lua54.c, cpython.c, the text format,
 * libvmstack's custom VMs) since ABI 4 made the module take programs:
 * desc3_prog.c compiles it to one that does what ABI 3.6's module did.
 * Moved here from the uapi header as it was at 3.6, field for field; it
 * is no longer an ABI, so its layout may change with the tools.
 */
#ifndef VMSTACK_VM_DESC3_H
#define VMSTACK_VM_DESC3_H

#include <linux/vmstack.h>

/*
 * A VM stack descriptor: data, not code. It tells how to find
 * one VM's frames at sample time and where to splice them into the native
 * stack. The merge rule: walk native frames; at a native frame whose PC is
 * in [code_start, code_end) (the interpreter runs there), find the VM's
 * activation record and state, walk the VM frames down to the bottom of
 * that activation, then continue natively from the registers the VM's
 * entry saved. A VM frame of a native function (on both stacks) is not
 * shown twice. All reads are nofault; bad data cuts only the VM part.
 *
 * Addresses: absolute, in the target. Offsets: bytes, signed.
 */

/* Where the VM state is. */
enum vmstack_vm_state {
	/* None: the top frame comes from a register (top_reg) */
	VMSTACK_VM_STATE_NONE,
	/* *(AR + state_off), the activation record of the VM's native frame */
	VMSTACK_VM_STATE_AR,
	/* *(state_addr): a pointer variable the VM keeps current */
	VMSTACK_VM_STATE_GLOBAL,
	/*
	 * (Since ABI 3.2.) The sampled thread's own state, on the VM's list
	 * of thread states: the first at *(*(state_addr) + thr_head_off),
	 * each next at *(T + thr_next_off), at most thr_max of them; the
	 * one whose u32 at T + thr_tid_off is the thread's id (as gettid()
	 * returns it in the thread) is taken. Looked up once per sample.
	 * (CPython: interpreter -> threads.head, tstate->next,
	 * tstate->native_thread_id.) A thread not on the list has no state.
	 */
	VMSTACK_VM_STATE_THREAD,
	__VMSTACK_VM_STATE_MAX,
};

enum vmstack_vm_link {
	/*
	 * prev = *(frame + link_off); the u16 at frame + flags_off says
	 * whether the frame ends its activation (any bit of bottom_flags)
	 * and whether it is a native function's (native_flags). A NULL
	 * prev ends it too. Frames need not lie in one stack. (Lua 5.4's
	 * CallInfo list.)
	 */
	VMSTACK_VM_LINK_POINTER,
	/*
	 * link = *(frame + link_off). If (link & pc_mask) == pc_val the link
	 * is the caller's return PC: prev = frame - slot * (extra + field),
	 * field = bits [insn_shift, insn_shift + insn_bits) of the u32 at
	 * link + insn_off (the call instruction). Otherwise prev = frame -
	 * (link & ~type_mask), and type (link & type_mask) ends the
	 * activation if bit type of bottom_types is set. Frames lie in the
	 * VM stack and move down it. (LuaJIT's frames.)
	 */
	VMSTACK_VM_LINK_TAGGED_DELTA,
	__VMSTACK_VM_LINK_MAX,
};


/*
 * After the VM frames, the native unwinder steps over the VM's native
 * frame by its own rules (caller_*_off unused): a VM in plain C.
 */
#define VMSTACK_VM_F_NATIVE_STEP	(1U << 0)
/*
 * *(frame + func_off) is the function's slot: function = *(slot) &
 * func_mask, kind = u8 at slot + kind_off (else at function + kind_off).
 */
#define VMSTACK_VM_F_FUNC_SLOT		(1U << 1)
/* A frame's PC is *(frame + frame_pc_off). */
#define VMSTACK_VM_F_FRAME_PC		(1U << 2)
/* A frame neither script nor native is bad data, not a builtin. */
#define VMSTACK_VM_F_NO_BUILTINS	(1U << 3)
/* A script identity is sane if u8 at ident + ident_check_off == ident_check_val. */
#define VMSTACK_VM_F_IDENT_CHECK	(1U << 4)
/*
 * The VM runs code it compiled (see the jit_* fields); needs the AR walk,
 * not NATIVE_STEP: compiled code has no unwind rules of its own.
 */
#define VMSTACK_VM_F_JIT		(1U << 5)
/*
 * A frame of link type cont_type whose u64 at frame + cont_off equals
 * cont_val also ends an activation (LuaJIT's FFI callback frames).
 */
#define VMSTACK_VM_F_CONT_BOTTOM	(1U << 6)
/*
 * An activation whose s32 at AR + ar_empty_off is negative has no VM
 * frames (LuaJIT's protected C calls: parser, FFI C parser, trace
 * compiler): its native frame is dropped and native unwinding goes on
 * from its saved registers; the VM frames belong to an outer activation.
 */
#define VMSTACK_VM_F_AR_EMPTY		(1U << 7)
/*
 * STATE_AR: an activation record must be one of its state's: the chain
 * starts at *(state + state_ar_off) and goes on at *(AR + ar_prev_off),
 * each with the bits of ar_mask cleared, for at most ar_chain_max hops.
 * An AR the chain ends (NULL) without reaching is one the VM has not
 * linked yet or has unlinked already (entry and exit code; LuaJIT's FFI
 * callbacks, whose AR still holds the state of the last call): treated as
 * empty (F_AR_EMPTY). A chain unreadable or longer than ar_chain_max
 * proves nothing: the AR is taken. Since ABI 3.2 also with STATE_THREAD
 * or STATE_GLOBAL (ar_off from the VM's native frame's sp): with
 * F_NATIVE_STEP an unlinked AR leaves the native frame as it is (CPython's
 * _PyCFrame before _PyEval_EvalFrameDefault links it, and after).
 */
#define VMSTACK_VM_F_AR_CHAIN		(1U << 8)
/*
 * F_JIT (since ABI 2.1): the id may still name the code object that jumped into
 * the one running, whose first instructions store its own number. If the
 * id's object O does not hold the pc, up to jit_near_max more are tried:
 * the object O links to (its number, a u16 at O + jit_link_off; 0: none),
 * then the objects on the chain of O's root R (R's number at O +
 * jit_root_off, 0 when O is a root itself; the chain's first at R +
 * jit_side_off, each next at the same offset in the one before; 0 ends
 * it). (LuaJIT: GCtrace.link, .root, .nextside.)
 */
#define VMSTACK_VM_F_JIT_NEAR		(1U << 9)
/*
 * (Since ABI 3.1.) The VM's references are 32 bits, zero-extended: the
 * function and the link of a frame (at frame + func_off, frame +
 * link_off, and a F_FUNC_SLOT slot's function), the state at AR +
 * state_off, *(state + stack_off), *(function + ident_off), the
 * continuation at frame + cont_off, *(A + jit_state_off), *(A +
 * jit_top_off), and the entries of the compiled-code table (4 bytes
 * each). Everything else stays a native pointer. (LuaJIT built without
 * GC64: GCRef and MRef are 32 bits, its frames one 8-byte slot holding
 * the function in the low half and the link in the high half.)
 */
#define VMSTACK_VM_F_REF32		(1U << 10)
/*
 * (Since ABI 3.2.) The top VM frame is *(AR + top_off) + top_adj: each
 * activation record keeps its own (CPython's _PyCFrame.current_frame),
 * instead of *(state + top_off) for the innermost one.
 */
#define VMSTACK_VM_F_TOP_AR		(1U << 11)
/*
 * (Since ABI 3.2.) A frame's function is its own identity (function +
 * ident_adj; ident_off unused): CPython's code objects.
 */
#define VMSTACK_VM_F_FUNC_IDENT		(1U << 12)
/*
 * (Since ABI 3.2.) A function's kind is the u64 at function + kind_off:
 * kind_word is a script function (a type pointer: CPython's &PyCode_Type);
 * anything else a builtin, or bad data with F_NO_BUILTINS. kind_script
 * and kind_native are unused.
 */
#define VMSTACK_VM_F_KIND_WORD		(1U << 13)
/*
 * (Since ABI 3.6.) A frame's function is checked before it is shown: the
 * u8 at function + func_check_off must be func_check_val (the VM's type
 * tag of function objects), and a builtin's kind must be at most
 * kind_max (0: any). A slot may hold something else for a moment (a frame
 * being set up, or torn down with its results stored over its function),
 * and any other object's byte at kind_off says nothing about builtins.
 * The top frame of a walk that fails the check is shown as a
 * VMSTACK_VMW_UNVERIFIED word and the walk goes on by its link; any
 * other frame that fails it cuts the walk (VMSTACK_VMW_BROKEN).
 */
#define VMSTACK_VM_F_FUNC_CHECK		(1U << 14)
/*
 * (Since ABI 3.6.) A frame called from script code must be a script
 * function's whose code holds the return PC: C < PC <= C + n * pc_unit,
 * where C = *(function + ident_off) (before ident_adj) and n is the u32
 * at identity + pc_size_off; else the walk is cut. A frame of a hidden
 * type (hide_types) hands the PC it was called with to the frame below
 * it (LuaJIT's vararg frames: the same function's). At the sampled
 * frame, pc_reg equal to the top frame's own link says the frame is being
 * entered or left (its slot may hold a result already): it is shown
 * unverified; pc_reg is shown as the top script frame's PC only where it
 * lies in its code (a VM may keep other things in that register).
 */
#define VMSTACK_VM_F_PC_CHECK		(1U << 15)
/*
 * (Since ABI 3.6.) A builtin's VMSTACK_VMW_BUILTIN word carries its kind
 * (the u8 at function + kind_off, < 256, which no function's address
 * is) instead of the function: named by what it was when sampled, not by
 * what the memory holds when user space reads it.
 */
#define VMSTACK_VM_F_BUILTIN_KIND	(1U << 16)
/*
 * (User space only, after ABI 3.6.) F_JIT and STATE_AR: a trace exit.
 * The VM's exit handler calls C code that restores the VM's frames from
 * a snapshot; its native frame lies in the code range but holds no AR.
 * A native frame there (the sampled one too) whose AR holds no sane
 * state is the exit handler's if the s32 at A + jit_id_off is
 * exit_state, A being the anchor register the handler saved at sp +
 * exit_anchor_off, plus jit_anchor_adj (with jit_reg NONE: the anchor
 * variable's, as for compiled code), or exit_gc_state (the exit drives
 * a garbage collector's step: the trace exited for it). Its frames are
 * the state's (*(A + jit_state_off)), from the compiled code's top
 * (*(A + jit_top_off)) while that is not 0 (the handler's own code
 * before it hands the top to the state), else from the state's top
 * (top_off); its AR the first of the state's chain (state_ar_off, then
 * ar_prev_off, each less ar_mask; F_AR_CHAIN) above the frame: the
 * exit's own protected calls link theirs below it. Sampled in
 * [exit_entry_start, exit_entry_end) (0: none), where compiled code or
 * the handler returns to the interpreter before sp is its AR again, the
 * same, but the anchor is the sampled jit_reg and the s32 is not tested
 * (there it is still the trace's number): the PC proves the exit.
 */
#define VMSTACK_VM_F_JIT_EXIT		(1U << 17)
#define VMSTACK_VM_EXIT_ENTRY_MAX	64
/*
 * (User space only.) F_JIT: compiled code that no object the id names
 * holds is still the VM's if one of its code areas does (ABI 4.1's
 * F4_JIT_AREAS: the first at *(A + jit_area_off), each starting with the
 * next one's address and its own size): the state's frames are shown
 * from the compiled code's top, with no object.
 */
#define VMSTACK_VM_F_JIT_AREAS		(1U << 18)
/*
 * (User space only.) What the VM is doing, as its own profiler tells it
 * (LuaJIT's G->vmstate, which jit.p's "v" mode reads): the s32 at
 * G + vms_off, G the reference at state + vms_g_off, shown as a pseudo-
 * frame above the state's frames, in the first activation of a sample
 * whose walk starts (shown once, its walk cut or not): a
 * VMSTACK_VMW_BUILTIN word of value
 * VMSTACK_VM_VMS_WORD | VMSTACK_VM_VMS_GC when it is vms_gc,
 * | VMSTACK_VM_VMS_JIT in [vms_jit_lo, vms_jit_hi]; nothing else. The
 * other states (interpreted, compiled, in C) show in the frames
 * themselves. Needs a state (any state_from but STATE_NONE).
 */
#define VMSTACK_VM_F_VM_STATE		(1U << 19)
/*
 * (User space only.) A continuation frame (a tagged delta link of
 * cont_type, not a bottom) keeps the PC its caller is at, past the
 * instruction that called it (LuaJIT's metamethods: frame_contpc), a
 * reference at frame + cont_pc_off: the caller's frame carries it, not
 * checked against the function (it names, it does not prove).
 */
#define VMSTACK_VM_F_CONT_PC		(1U << 20)
/*
 * (User space only.) A script word's identity tagged with what the object
 * at it was when sampled: bits 47..56 of the value are the low 10 bits of
 * the u32 at identity + ident_tag_off (CPython: co_firstlineno). A code
 * object freed and another allocated at its address (CPython frees the
 * code of class bodies and modules once run) are other words, and a
 * namer that reads another object there than was sampled can tell
 * (VMSTACK_VM_IDENT_TAG_*; user addresses stay below bit 47).
 */
#define VMSTACK_VM_F_IDENT_TAG		(1U << 21)
#define VMSTACK_VM_F_ALL		((1U << 22) - 1)
#define VMSTACK_VM_IDENT_TAG_SHIFT	47
#define VMSTACK_VM_IDENT_TAG_MASK	0x3ffU
/* F_VM_STATE's builtin words: past any address or kind a builtin has. */
#define VMSTACK_VM_VMS_WORD		(1ULL << 56)
#define VMSTACK_VM_VMS_GC		0
#define VMSTACK_VM_VMS_JIT		1
#define VMSTACK_VM_AR_CHAIN_MAX		64
#define VMSTACK_VM_THREADS_MAX		256

struct vmstack_vm_desc {
	__u64 code_start, code_end;
	__u32 flags;		/* VMSTACK_VM_F_* */
	__u8 state_from;	/* enum vmstack_vm_state */
	__u8 top_reg;		/* enum vmstack_vm_reg */
	__u8 pc_reg;		/* enum vmstack_vm_reg */
	__u8 link;		/* enum vmstack_vm_link */
	__u64 state_addr;	/* STATE_GLOBAL */
	__u64 func_mask;	/* see func_off */
	/*
	 * The activation record (AR) of a VM native frame: its sp + ar_off.
	 * In the sampled frame, if the state check fails there, sp +
	 * ar_leaf_off is tried: a leaf helper the VM called without a frame
	 * of its own (its return address is on top of the AR).
	 */
	__s32 ar_off;
	__s32 ar_leaf_off;
	/* STATE_AR: *(AR + state_off). Sane if u8 at state + check_off == check_val. */
	__s32 state_off;
	__s32 check_off;
	/*
	 * The top VM frame: top_reg + top_adj (RBP: in any frame; others:
	 * in the sampled frame only, PC in pc_reg); else, and if the walk
	 * from the register fails, *(state + top_off) + top_adj.
	 */
	__s32 top_off;
	__s32 top_adj;
	/* TAGGED_DELTA: frames lie in [*(state + stack_off), that + stack_max). */
	__s32 stack_off;
	__u32 stack_max;
	/* Frame links (see enum vmstack_vm_link). */
	__s32 link_off;
	__u32 type_mask;	/* at most 31: a type is a bit of the masks below */
	__u32 pc_mask, pc_val;
	__s32 insn_off;
	__u32 bottom_types;	/* bit t: link type t ends an activation */
	__u32 hide_types;	/* frames of these link types are not shown */
	__s32 flags_off;	/* POINTER: the frame's u16 flags */
	__u16 bottom_flags, native_flags;
	__s32 frame_pc_off;	/* F_FRAME_PC */
	/*
	 * The function of a frame: *(frame + func_off) & func_mask (see
	 * F_FUNC_SLOT); its kind, a u8 at kind_off: kind_script (shown with
	 * its identity *(func + ident_off) + ident_adj), kind_native (a
	 * native function, already on the native stack: not shown),
	 * anything else a builtin (shown by its function). Frames whose
	 * function is the state are skipped.
	 */
	__s32 func_off;
	__s32 kind_off;
	__s32 ident_off;
	__s32 ident_adj;
	__s32 ident_check_off;	/* F_IDENT_CHECK */
	/* Native registers of the VM's caller, saved by the VM's entry. */
	__s32 caller_bp_off;	/* AR + off: the caller's rbp */
	__s32 caller_ra_off;	/* AR + off: the return address */
	__s32 caller_sp_off;	/* AR + off = the caller's sp */
	__u16 max_frames;	/* per activation, <= VMSTACK_VM_MAX_FRAMES */
	__u8 check_val;
	__u8 ident_check_val;
	__u8 kind_script, kind_native;
	__u8 insn_shift, insn_bits, extra, slot;
	__u8 jit_reg;		/* enum vmstack_vm_reg, F_JIT */
	__u8 cont_type;		/* F_CONT_BOTTOM */
	__s32 ar_empty_off;	/* F_AR_EMPTY */
	__s32 cont_off;		/* F_CONT_BOTTOM */
	/*
	 * F_JIT: a sample whose pc is in no VM's code may be in code the VM
	 * compiled. There jit_reg + jit_anchor_adj is an anchor A (with
	 * jit_reg NONE, since 3.1: *(jit_anchor_ptr) + jit_anchor_adj, a
	 * pointer variable of the VM's); the s32 at A + jit_id_off, if >= 0
	 * and below the u32 at A + jit_count_off, indexes an array of code
	 * objects at *(A + jit_table_off) (8-byte entries, 4 with F_REF32;
	 * & func_mask); object O's code is *(O + jit_code_off), the
	 * u32 at O + jit_size_off bytes long, and must hold the pc. Then the
	 * state is *(A + jit_state_off), the top frame *(A + jit_top_off) +
	 * top_adj, and the activation record *(state + state_ar_off) with the
	 * bits of ar_mask cleared (also F_AR_CHAIN's first link). O is shown
	 * as a VMSTACK_VMW_JIT frame.
	 * jit_reg is taken as sampled, and tried at the sampled frame and at
	 * any frame without unwind rules: code the compiled code called keeps
	 * a callee-saved register unless it uses it, and the lookup proves it.
	 */
	__s32 jit_anchor_adj;
	__s32 jit_id_off;
	__s32 jit_table_off;
	__s32 jit_count_off;
	__s32 jit_code_off;
	__s32 jit_size_off;
	__s32 jit_state_off;
	__s32 jit_top_off;
	__s32 state_ar_off;
	__s32 ar_prev_off;	/* F_AR_CHAIN */
	__u32 ar_chain_max;	/* F_AR_CHAIN: 1..VMSTACK_VM_AR_CHAIN_MAX */
	__u64 ar_mask;		/* < 4096 */
	__u64 cont_val;		/* F_CONT_BOTTOM */
	__s32 jit_link_off;	/* F_JIT_NEAR */
	__s32 jit_root_off;
	__s32 jit_side_off;
	__u32 jit_near_max;	/* F_JIT_NEAR: 1..VMSTACK_VM_JIT_NEAR_MAX */
	/* ABI 3.0 ends here. */
	__u64 jit_anchor_ptr;	/* 3.1: F_JIT with jit_reg NONE */
	/* ABI 3.1 ends here. */
	__s32 thr_head_off;	/* 3.2: STATE_THREAD */
	__s32 thr_next_off;
	__s32 thr_tid_off;
	__u32 thr_max;		/* 1..VMSTACK_VM_THREADS_MAX */
	__u64 kind_word;	/* 3.2: F_KIND_WORD */
	/* ABI 3.2 ends here. */
	__s32 func_check_off;	/* 3.6: F_FUNC_CHECK */
	__s32 pc_size_off;	/* 3.6: F_PC_CHECK */
	__u8 func_check_val;	/* F_FUNC_CHECK */
	__u8 kind_max;		/* F_FUNC_CHECK: 0, or the largest builtin kind */
	__u8 pc_unit;		/* F_PC_CHECK: 1..8 bytes */
	__u8 pad_3_6[5];	/* 0 */
	__s32 exit_anchor_off;	/* F_JIT_EXIT, with jit_reg */
	__s32 exit_state;	/* F_JIT_EXIT */
	__s32 exit_gc_state;	/* F_JIT_EXIT */
	__s32 jit_area_off;	/* F_JIT_AREAS */
	__u32 jit_areas_max;	/* F_JIT_AREAS: 1..VMSTACK_VM_JIT_AREAS_MAX */
	__u64 exit_entry_start;	/* F_JIT_EXIT: in [code_start, code_end) */
	__u64 exit_entry_end;	/* ... at most VMSTACK_VM_EXIT_ENTRY_MAX past it */
	__s32 vms_g_off;	/* F_VM_STATE: the state's reference to G */
	__s32 vms_off;		/* F_VM_STATE: the s32 in G */
	__s32 vms_gc;		/* F_VM_STATE: [GC] */
	__s32 vms_jit_lo;	/* F_VM_STATE: [JIT compiler], lo <= state <= hi */
	__s32 vms_jit_hi;
	__s32 cont_pc_off;	/* F_CONT_PC */
	__s32 ident_tag_off;	/* F_IDENT_TAG */
};

#endif
