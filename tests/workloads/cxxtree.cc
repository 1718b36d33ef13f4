// SPDX-License-Identifier: GPL-2.0
/*
 * A C++ program whose functions have known demangled names (t_demangle):
 * a class's methods, overloads, a function template, a lambda and a
 * function in an anonymous namespace. Each round of
 * app::Engine::run(double) calls, in about equal parts of the CPU time:
 *   app::Engine::step(int) -> app::spin(unsigned long)
 *   double app::sum<double>(std::vector<double, ...> const&) -> app::spin(double)
 *   app::Engine::run(double)::{lambda(unsigned long)#1}::operator()(unsigned long) const
 *     -> (anonymous namespace)::leaf_work(unsigned long)
 * Usage: cxxtree SECONDS
 */
#include <chrono>
#include <cstdlib>
#include <vector>

static volatile unsigned long sink;

namespace {
void leaf_work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}
}

namespace app {
void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i ^ (i >> 3);
}

void spin(double x)
{
	for (unsigned long i = 0; i < static_cast<unsigned long>(x); i++)
		sink += i * 3;
}

template <typename T> T sum(const std::vector<T> &v)
{
	T s = T();

	for (const T &x : v)
		s += x;
	spin(s);
	return s;
}

class Engine {
public:
	void run(double seconds);

private:
	void step(int n);
};

void Engine::step(int n)
{
	spin(static_cast<unsigned long>(n));
}

void Engine::run(double seconds)
{
	const std::vector<double> v(100, 2000.0);	/* a sum of 200000 */
	const auto work = [](unsigned long n) { leaf_work(n); };
	const auto t0 = std::chrono::steady_clock::now();

	do {
		step(200000);
		sum(v);
		work(200000);
	} while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() <
		 seconds);
}
}

int main(int argc, char **argv)
{
	app::Engine e;

	e.run(argc > 1 ? std::atof(argv[1]) : 3);
	return 0;
}
