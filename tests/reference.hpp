// The tests' side of the reference library (bench/reference, shared with the
// benchmark): the check of a result against the reference and its bound,
// |y − y_ref| ≤ (terms + 4)·eps(T)·(|β||y0| + |α|·Σ|a||x|) + 4·min(T), and
// the loop over the (alpha, beta) grid that every kernel test runs.
#pragma once

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common.hpp"
#include "reference/reference.hpp"
#include "spx/convert.hpp"
#include "spx/ops.hpp"
#include "spx/registry.hpp"

namespace spx::test {

using reference::expected;
using reference::Expected;
using reference::expected_spmv;
using reference::Product;

/// Expects got[i] within bound of the reference everywhere, and no NaN.
/// Returns the number of mismatches (reports the first few).
template <Value T>
int expect_matches(const std::vector<T>& got, const Expected<T>& ref, const std::string& what) {
  EXPECT_EQ(got.size(), ref.y.size()) << what;
  int bad = 0;
  for (std::size_t i = 0; i < std::min(got.size(), ref.y.size()); ++i) {
    const bool ok = std::isfinite(got[i]) && std::fabs(got[i] - ref.y[i]) <= ref.bound[i];
    if (!ok && ++bad <= 5)
      ADD_FAILURE() << what << ": y[" << i << "] = " << got[i] << ", reference " << ref.y[i]
                    << " (allowed error " << ref.bound[i] << ")";
  }
  return bad;
}

/// What one product of a grid run gives back: the result and its report.
template <Value T>
struct Ran {
  std::vector<T> y;
  RunInfo info;
};

/// y = alpha·P + beta·y0 for each (alpha, beta) of `grid`: `run(alpha, beta,
/// y_init)` computes it (y_init is y0, or NaN when beta = 0: a kernel must
/// not read y then) and returns Ran; the result must match the reference
/// within its bound, and `check_info(info, what)` adds the caller's
/// expectations on the report. An exception is a failure. Returns false after
/// the first failing pair (reported with `label` and the scalars).
/// `value_roundoff`: the unit roundoff of the format's stored values
/// (stored_value_roundoff; 0 for every full-precision format), which widens
/// the bound by the documented term of sell_lp.hpp (SELL-LP and DIA-LP).
template <Value T, class Run, class CheckInfo>
bool matches_over_grid(std::span<const Scalars> grid, const Product& p, const std::vector<T>& y0,
                       const std::string& label, Run&& run, CheckInfo&& check_info,
                       double value_roundoff = 0) {
  for (const auto [a, b] : grid) {
    const T alpha = static_cast<T>(a), beta = static_cast<T>(b);
    const std::string what = fmt::format("{}, alpha={} beta={}", label, a, b);
    const std::vector<T> y_init =
        b == 0 ? std::vector<T>(y0.size(), std::numeric_limits<T>::quiet_NaN()) : y0;
    Ran<T> ran;
    try {
      ran = run(alpha, beta, y_init);
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": threw " << e.what();
      return false;
    }
    check_info(ran.info, what);
    if (expect_matches(ran.y, expected<T>(p, alpha, beta, y0, value_roundoff), what) > 0)
      return false;
  }
  return true;
}

/// The run of matches_over_grid for a host matrix m (a format, or a Matrix
/// holding one): spx::spmv with the grid's scalars and initial y.
template <class M, Value T>
auto on_host(const M& m, const std::vector<T>& x) {
  return [&m, &x](T alpha, T beta, const std::vector<T>& y_init) {
    Ran<T> r{y_init, {}};
    r.info = spmv(alpha, m, x, beta, r.y);
    return r;
  };
}

/// The check_info of matches_over_grid for a kernel's runs: the report names
/// the kernel's algorithm, backend and format.
inline auto reports_kernel(const KernelInfo& kernel) {
  return [kernel](const RunInfo& info, const std::string& what) {
    EXPECT_EQ(info.algorithm, kernel.algorithm) << what;
    EXPECT_EQ(info.backend, kernel.backend) << what;
    EXPECT_EQ(info.format, kernel.format) << what;
  };
}

/// The guard of the registry-wide kernel tests: every format convertible in
/// this build had a kernel that ran (`ran`: the kernels that ran, per format).
inline void expect_every_convertible_format_ran(const std::map<Format, int>& ran) {
  for (Format f : kAllFormats)
    if (convertible(f)) {
      EXPECT_GT(ran.count(f) ? ran.at(f) : 0, 0) << to_string(f);
    }
}

}  // namespace spx::test
