# Load, record, unload, many times over.
. tests/guest/lib.sh
for i in $(seq ${VMSTACK_LOOP:-10}); do
	rmmod vmstack || fail "rmmod $i"
	insmod "$VMSTACK_KO" || fail "insmod $i"
	vmstack-record -q -F 2000 -o /dev/null -- build/workloads/calltree 0.3 2>/dev/null ||
		fail "record $i"
done
