# A C++ program's frames are named as c++filt names them (issue 28): a
# class's methods, overloads, a function template, a lambda and a function
# in an anonymous namespace, each in its known stack (build/workloads/cxxtree:
# three call paths of about equal CPU time). A raw recording replays to the
# same stacks; --no-demangle (recorder and report) keeps the names as the
# file spells them; the flame graph and pprof keep the names whole.
. tests/guest/lib.sh
out=/tmp/cxx.folded
# fixed_count FILE STRING: the samples of the stacks holding STRING (no regex:
# the names are full of ( ) < > { } and *).
fixed_count() { grep -F -- "$2" "$1" | awk '{s += $NF} END {print s+0}'; }

vmstack-record -F 999 --raw /tmp/cxx.raw -o $out -- build/workloads/cxxtree $((2 * span)) \
	2>/tmp/rec.err || { cat /tmp/rec.err; fail "vmstack-record failed"; }
cat /tmp/rec.err
cp $out "$VMSTACK_RESULTS/"
# The count is the last field: names hold spaces.
awk '{print $NF "\t" $0}' $out | sort -nr | head -6 | cut -f2-
run='main;app::Engine::run(double)'
step="$run;app::Engine::step(int);app::spin(unsigned long)"
sum="$run;double app::sum<double>(std::vector<double, std::allocator<double> > const&);app::spin(double)"
lambda="$run;app::Engine::run(double)::{lambda(unsigned long)#1}::operator()(unsigned long) const;(anonymous namespace)::leaf_work(unsigned long)"
total=$(stack_count $out '')
a=$(fixed_count $out "$step")
b=$(fixed_count $out "$sum")
c=$(fixed_count $out "$lambda")
note "total=$total step=$a sum=$b lambda=$c"
[ "$total" -gt 1000 ] || fail "too few samples: $total"
for n in $a $b $c; do
	[ $((100 * n / total)) -ge 10 ] || fail "a known stack has under 10% of the samples"
done
[ $((100 * (a + b + c) / total)) -ge 80 ] || fail "the known stacks are under 80% of the samples"
# None of the program's own functions keeps its mangled name.
grep -E ';_Z(N3app|N12_GLOBAL__N_1|ZN3app)' $out && fail "a mangled name in the profile"

# The raw recording: the same stacks; --no-demangle: the file's names.
vmstack-report -i /tmp/cxx.raw -o /tmp/cxx-replay.folded || fail "report failed"
cmp $out /tmp/cxx-replay.folded || fail "the replay differs from the live output"
vmstack-report --no-demangle -i /tmp/cxx.raw -o /tmp/cxx-mangled.folded || fail "report --no-demangle failed"
m=$(fixed_count /tmp/cxx-mangled.folded 'main;_ZN3app6Engine3runEd;_ZN3app6Engine4stepEi;_ZN3app4spinEm')
note "mangled step stacks: $m"
[ "$m" = "$a" ] || fail "--no-demangle: $m samples in the mangled step stack, not $a"
grep -qF 'app::' /tmp/cxx-mangled.folded && fail "--no-demangle: a demangled name"
vmstack-record -q --no-demangle -o /tmp/cxx-rec-mangled.folded -- build/workloads/cxxtree $span ||
	fail "vmstack-record --no-demangle failed"
grep -qF ';_ZZN3app6Engine3runEdENKUlmE_clEm;_ZN12_GLOBAL__N_19leaf_workEm' /tmp/cxx-rec-mangled.folded ||
	fail "vmstack-record --no-demangle: no mangled lambda stack"
grep -qF 'app::' /tmp/cxx-rec-mangled.folded && fail "vmstack-record --no-demangle: a demangled name"

# The flame graph escapes the names for XML; pprof keeps them whole (-raw
# shows a location's whole name in parentheses after pprof's short one).
vmstack-report -i /tmp/cxx.raw -o /tmp/cxx.svg || fail "report to svg failed"
grep -qF 'double app::sum&lt;double&gt;(std::vector&lt;double, std::allocator&lt;double&gt; &gt; const&amp;)' \
	/tmp/cxx.svg || fail "the template's name is not whole in the svg"
vmstack-report -i /tmp/cxx.raw -o /tmp/cxx.pb.gz || fail "report to pprof failed"
go tool pprof -symbolize=none -traces /tmp/cxx.pb.gz >/tmp/cxx-traces.txt 2>&1 ||
	{ cat /tmp/cxx-traces.txt; fail "go tool pprof does not read it"; }
grep -qF 'app::Engine::run(double)::{lambda(unsigned long)#1}::operator()(unsigned long) const' \
	/tmp/cxx-traces.txt || fail "the lambda's name is not whole in pprof"
true
