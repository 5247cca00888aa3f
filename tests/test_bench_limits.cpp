// The benchmark's limits: warm-ups bounded by the per-kernel seconds and by
// the run's time budget, whatever number of them is asked for; --warmup 0
// meaning none; and a run that measured nothing saying why.
#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <functional>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bench.hpp"
#include "common.hpp"
#include "measure.hpp"

namespace spx::test {
namespace {

using bench::Config;
using Clock = std::chrono::steady_clock;

/// A CPU timer that counts the runs it makes.
class CountingTimer final : public bench::Timer {
 public:
  std::vector<double> time(const std::function<void()>& f, int warmup, int reps, bool) override {
    for (int i = 0; i < warmup; ++i) {
      f();
      ++untimed;
    }
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
      const auto t0 = Clock::now();
      f();
      t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    timed += reps;
    return t;
  }
  void synchronize() override {}
  CUstream_st* stream() const override { return nullptr; }
  long untimed = 0, timed = 0;
};

/// A product of about 1 ms that fails the test (by throwing) past `cap` calls,
/// so that an unbounded warm-up fails at once instead of running for weeks.
std::function<void()> product(long& calls, long cap) {
  return [&calls, cap] {
    if (++calls > cap) throw std::runtime_error("warm-up not bounded");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
}

Config config(int warmup, double max_seconds) {
  Config c;
  c.backend = Backend::Cpu;
  c.reps = 3;
  c.warmup = warmup;
  c.max_seconds_per_kernel = max_seconds;
  return c;
}

TEST(BenchLimits, WarmupsStopAfterHalfTheSecondsPerKernel) {
  for (const bool before_probe : {true, false}) {
    SCOPED_TRACE(before_probe ? "warm-up before the probe" : "after the probe");
    CountingTimer timer;
    long calls = 0;
    const auto t0 = Clock::now();
    // 0.2 s per kernel: warm-ups stop after 0.1 s, about 100 runs of 1 ms.
    const auto t = bench::detail::time_budgeted(timer, product(calls, 2000), config(INT_MAX, 0.2),
                                                false, before_probe);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_EQ(t.size(), 3u);
    // After a cold probe, 2^31 - 1 runs are seen not to fit: none.
    EXPECT_GE(timer.untimed, before_probe ? 1 : 0);
    EXPECT_LE(timer.untimed, 150);
    EXPECT_LT(s, 1.0);
  }
  // After the probe, warm-ups that fit in half the seconds all run.
  CountingTimer timer;
  long calls = 0;
  bench::detail::time_budgeted(timer, product(calls, 2000), config(20, 1.0), false, false);
  EXPECT_EQ(timer.untimed, 20);
}

TEST(BenchLimits, WarmupsStopWhenTheTimeBudgetIsUsedUp) {
  CountingTimer timer;
  long calls = 0;
  // 100 s per kernel, but 0.05 s left of the run: warm-ups stop there.
  const auto t = bench::detail::time_budgeted(timer, product(calls, 2000), config(INT_MAX, 100),
                                              false, true, 0.05);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_LE(timer.untimed, 80);
  // Nothing left: no warm-up at all, the probe and the repetitions still run.
  CountingTimer none;
  long calls2 = 0;
  bench::detail::time_budgeted(none, product(calls2, 2000), config(INT_MAX, 100), false, true,
                               -1.0);
  EXPECT_EQ(none.untimed, 0);
  EXPECT_EQ(calls2, 1 + 3);
}

TEST(BenchLimits, WarmupZeroMeansNone) {
  CountingTimer timer;
  long calls = 0;
  bench::detail::time_budgeted(timer, product(calls, 100), config(0, 1.0), false, true);
  EXPECT_EQ(timer.untimed, 0);
  EXPECT_EQ(calls, 1 + 3);  // the probe and the repetitions
  EXPECT_EQ(config(0, 1.0).effective_warmup(), 0);
  EXPECT_EQ(config(-1, 1.0).effective_warmup(), 2);  // the CPU default when not given
}

TEST(BenchLimits, WarmUpMakesTheRunsAskedForWhenTheyFit) {
  CountingTimer timer;
  long calls = 0;
  EXPECT_EQ(bench::detail::warm_up(timer, product(calls, 100), 7, 10.0), 7);
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(bench::detail::warm_up(timer, product(calls, 100), 7, 0.0), 0);
}

TEST(BenchLimits, BudgetLeftCountsFromTheStartOfTheMeasurements) {
  Config c;
  bench::RunContext run;
  EXPECT_EQ(bench::detail::budget_left_s(c, run), std::numeric_limits<double>::infinity());
  c.time_budget_s = 10;
  EXPECT_EQ(bench::detail::budget_left_s(c, run), std::numeric_limits<double>::infinity())
      << "not started: no budget applies";
  run.started = Clock::now() - std::chrono::seconds(4);
  const double left = bench::detail::budget_left_s(c, run);
  EXPECT_GT(left, 5.0);
  EXPECT_LE(left, 6.0);
}

TEST(BenchLimits, NothingMeasuredSaysWhy) {
  bench::Results res;
  EXPECT_CONTAINS(bench::nothing_measured(res), "the suite is empty");
  bench::MatrixInfo bad;
  bad.name = "bad.mtx";
  bad.error = "cannot load: bad.mtx:3: row index 3 is outside 1..2";
  res.matrices.push_back(bad);
  const std::string why = bench::nothing_measured(res);
  EXPECT_CONTAINS(why, "nothing was measured (1 matrices, 0 kernel records)");
  EXPECT_CONTAINS(why, "bad.mtx: cannot load: bad.mtx:3");
  bench::Record skipped;
  skipped.matrix = "m";
  skipped.format = Format::Dia;
  skipped.status = bench::Status::Skipped;
  skipped.reason = "cannot run: too many diagonals";
  res.records.push_back(skipped);
  EXPECT_CONTAINS(bench::nothing_measured(res), "(and 1 more; see the table)");
  bench::Record ok;
  ok.status = bench::Status::Ok;
  res.records.push_back(ok);
  EXPECT_EQ(bench::nothing_measured(res), "");
}

}  // namespace
}  // namespace spx::test
