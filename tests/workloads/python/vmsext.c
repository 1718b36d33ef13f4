// SPDX-License-Identifier: GPL-2.0
/*
 * vmsext: a tiny CPython 3.11 extension for the Python workloads
 * (tests/workloads/python/known.py). It puts named native frames between
 * and under Python frames:
 *
 *   vmsext.spin(n)        n turns of a C busy loop in vmsext_spin_c
 *                         (a native leaf); returns the accumulator (int).
 *   vmsext.call(f, *args) f(*args), called from C through vmsext_call_c,
 *                         so C -> Py -> C -> Py -> C stacks can be built.
 *
 * Both workers are non-static, noinline and noclone, so they keep their
 * own symbol (no .isra/.constprop copy) and their own frame; neither ends
 * in a tail call, so the caller's frame stays on the stack too.
 * Single-phase init (PyInit_vmsext), built against python3.11-dev.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

long vmsext_spin_c(long n);
PyObject *vmsext_call_c(PyObject *f, PyObject *args);

__attribute__((noinline, noclone)) long vmsext_spin_c(long n)
{
	volatile unsigned long acc = 0;
	long i;

	for (i = 0; i < n; i++)
		acc += (unsigned long)i ^ (acc >> 3);
	return (long)(acc & 0x7fffffff);
}

__attribute__((noinline, noclone)) PyObject *vmsext_call_c(PyObject *f, PyObject *args)
{
	PyObject *res = PyObject_Call(f, args, NULL);

	/* Work after the call: no tail call, this frame stays between. */
	Py_DECREF(args);
	return res;
}

static PyObject *vmsext_spin(PyObject *self, PyObject *arg)
{
	long n = PyLong_AsLong(arg);

	(void)self;
	if (n == -1 && PyErr_Occurred())
		return NULL;
	return PyLong_FromLong(vmsext_spin_c(n));
}

static PyObject *vmsext_call(PyObject *self, PyObject *args)
{
	Py_ssize_t nargs = PyTuple_GET_SIZE(args);
	PyObject *f, *rest, *res;

	(void)self;
	if (nargs < 1) {
		PyErr_SetString(PyExc_TypeError, "call() needs a callable");
		return NULL;
	}
	f = PyTuple_GET_ITEM(args, 0);
	if (!PyCallable_Check(f)) {
		PyErr_SetString(PyExc_TypeError, "call(): first argument is not callable");
		return NULL;
	}
	rest = PyTuple_GetSlice(args, 1, nargs);
	if (!rest)
		return NULL;
	res = vmsext_call_c(f, rest);	/* consumes rest */
	/* Keep this frame too: no tail call into vmsext_call_c. */
	__asm__ volatile("" ::: "memory");
	return res;
}

static PyMethodDef vmsext_methods[] = {
	{ "spin", vmsext_spin, METH_O, "spin(n): n turns of a C busy loop; returns an int" },
	{ "call", vmsext_call, METH_VARARGS, "call(f, *args): f(*args), called from C" },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef vmsext_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "vmsext",
	.m_doc = "native frames for the vmstack Python workloads",
	.m_size = -1,
	.m_methods = vmsext_methods,
};

PyMODINIT_FUNC PyInit_vmsext(void)
{
	return PyModule_Create(&vmsext_module);
}
