// Building blocks of the generators (src/core/generate_*.cpp): counter-based
// random streams, a memoryless random bijection, distinct-column sampling, and
// the two-pass parallel CSR builder.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/first_error.hpp"
#include "core/checked.hpp"
#include "spx/generate.hpp"

namespace spx::gen {

// ---- random numbers ----------------------------------------------------------

__extension__ typedef unsigned __int128 Uint128;  // GCC/Clang; __extension__ keeps -Wpedantic quiet

/// The splitmix64 finalizer: a bijective 64-bit mix.
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

/// A hash of (a, b): the key of a counter-based stream.
constexpr std::uint64_t hash(std::uint64_t a, std::uint64_t b) noexcept {
  return mix64(a ^ mix64(b + 0x9e3779b97f4a7c15ULL));
}
constexpr std::uint64_t hash(std::uint64_t a, std::uint64_t b, std::uint64_t c) noexcept {
  return hash(hash(a, b), c);
}

/// splitmix64: a small stream, seeded per row (or per edge, per matrix), so
/// that the result does not depend on which thread consumes which stream.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) noexcept : state_(seed) {}
  std::uint64_t next() noexcept {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix64(state_);
  }
  /// Uniform in [0, 1).
  double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in (0, 1].
  double uniform_open0() noexcept { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }
  /// Uniform in [0, n), n ≥ 1 (multiply-shift; bias below 2^-32 for the n used here).
  std::int64_t below(std::int64_t n) noexcept {
    const Uint128 r = static_cast<Uint128>(next()) * static_cast<std::uint64_t>(n);
    return static_cast<std::int64_t>(r >> 64);
  }
  /// Uniform in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi) noexcept {
    return lo + below(hi - lo + 1);
  }
  /// ±U[0.5, 1.5]: never zero, mixed signs.
  double value() noexcept {
    const std::uint64_t r = next();
    const double mag = 0.5 + static_cast<double>(r >> 11) * 0x1.0p-53;
    return (r & 1) ? mag : -mag;
  }

 private:
  std::uint64_t state_;
};

// ---- logarithms with the same bits everywhere --------------------------------

/// 2·atanh(s) = 2(s + s³/3 + s⁵/5 + …) for |s| ≤ 0.1716 (9 terms: relative
/// error below 1e-14; the generators need determinism more than digits).
inline double two_atanh(double s) noexcept {
  const double s2 = s * s;
  double poly = 1.0 / 17;
  for (int k = 7; k >= 0; --k)
    poly = poly * s2 + 1.0 / (2 * k + 1);
  return 2 * s * poly;
}

/// Natural logarithm of a finite x > 0 from IEEE +, −, ×, ÷ and bit
/// manipulation only. libm's log differs between library versions and CPU
/// variants (FMA or not); the generators' decisions must not, so that every
/// machine makes the same matrix.
inline double det_log(double x) noexcept {
  auto bits = std::bit_cast<std::uint64_t>(x);
  int e = static_cast<int>((bits >> 52) & 0x7ff);
  int shift = 0;
  if (e == 0) {  // subnormal: scale into the normal range first
    bits = std::bit_cast<std::uint64_t>(x * 0x1.0p64);
    e = static_cast<int>((bits >> 52) & 0x7ff);
    shift = 64;
  }
  // x = m·2^(e − 1022 − shift) with m in [0.5, 1).
  double m = std::bit_cast<double>((bits & 0x800fffffffffffffULL) | (std::uint64_t{1022} << 52));
  e = e - 1022 - shift;
  if (m < 0.70710678118654752) {
    m *= 2;
    --e;
  }
  return e * 0.69314718055994530942 + two_atanh((m - 1) / (m + 1));
}

/// log(1 − p) for p in [0, 1), accurate for small p as well.
inline double det_log1m(double p) noexcept {
  if (p >= 0.25) return det_log(1 - p);
  return two_atanh(-p / (2 - p));  // log(1 + x) = 2·atanh(x / (2 + x)), x = −p
}

/// The two independent seeds derived from GenSpec::seed: one for the
/// structure, one for the values (so that a uniform batch can share a pattern
/// and differ in values).
struct Seeds {
  std::uint64_t structure;
  std::uint64_t values;
  static Seeds from(std::uint64_t seed) noexcept {
    return {hash(seed, 0x5354525543ULL), hash(seed, 0x56414c554553ULL)};
  }
};

// ---- a random bijection of [0, n) --------------------------------------------

/// A keyed bijection of [0, n) evaluated in O(1) expected time without
/// memory: three rounds of (odd multiply, xorshift, add) on the smallest
/// power-of-two domain holding n, with cycle walking back into [0, n).
class Bijection {
 public:
  Bijection(std::int64_t n, std::uint64_t key) noexcept : n_(n) {
    bits_ = n <= 1 ? 1 : std::bit_width(static_cast<std::uint64_t>(n - 1));
    mask_ = bits_ >= 64 ? ~0ULL : (1ULL << bits_) - 1;
    shift_ = std::max(1, bits_ / 2);
    Rng rng(key);
    for (auto& r : rounds_) {
      r.mul = rng.next() | 1;
      r.inv = inverse(r.mul);
      r.add = rng.next();
    }
  }
  std::int64_t operator()(std::int64_t x) const noexcept {
    if (n_ <= 1) return x;
    std::uint64_t v = static_cast<std::uint64_t>(x);
    do
      v = forward(v);
    while (v >= static_cast<std::uint64_t>(n_));
    return static_cast<std::int64_t>(v);
  }
  std::int64_t inverse_of(std::int64_t y) const noexcept {
    if (n_ <= 1) return y;
    std::uint64_t v = static_cast<std::uint64_t>(y);
    do
      v = backward(v);
    while (v >= static_cast<std::uint64_t>(n_));
    return static_cast<std::int64_t>(v);
  }

 private:
  struct Round {
    std::uint64_t mul, inv, add;
  };
  static std::uint64_t inverse(std::uint64_t a) noexcept {  // a·x ≡ 1 mod 2^64, a odd
    std::uint64_t x = a;
    for (int i = 0; i < 6; ++i)
      x *= 2 - a * x;
    return x;
  }
  std::uint64_t forward(std::uint64_t v) const noexcept {
    for (const auto& r : rounds_) {
      v = (v * r.mul) & mask_;
      v ^= v >> shift_;
      v = (v + r.add) & mask_;
    }
    return v;
  }
  std::uint64_t backward(std::uint64_t v) const noexcept {
    for (int k = 2; k >= 0; --k) {
      const auto& r = rounds_[k];
      v = (v - r.add) & mask_;
      std::uint64_t u = v;  // invert v ^= v >> shift
      for (int s = shift_; s < bits_; s += shift_)
        u = v ^ (u >> shift_);
      v = (u * r.inv) & mask_;
    }
    return v;
  }

  std::int64_t n_;
  int bits_ = 1, shift_ = 1;
  std::uint64_t mask_ = 1;
  Round rounds_[3]{};
};

// ---- sampling ----------------------------------------------------------------

/// Appends k distinct columns of [0, n), sorted, to `out` (k ≤ n).
/// Small k: draw, sort, deduplicate, redraw the missing ones; large k:
/// selection sampling in one pass over [0, n).
inline void sample_distinct(Rng& rng, std::int64_t n, std::int64_t k,
                            std::vector<std::int64_t>& out) {
  if (k <= 0) return;
  const std::size_t base = out.size();
  if (2 * k >= n) {
    std::int64_t need = k;
    for (std::int64_t j = 0; j < n && need > 0; ++j)
      if (rng.below(n - j) < need) {
        out.push_back(j);
        --need;
      }
    return;
  }
  std::size_t have = 0;
  while (have < static_cast<std::size_t>(k)) {
    for (std::size_t t = have; t < static_cast<std::size_t>(k); ++t)
      out.push_back(rng.below(n));
    std::sort(out.begin() + base, out.end());
    out.erase(std::unique(out.begin() + base, out.end()), out.end());
    have = out.size() - base;
  }
}

/// Binomial(n, p) for 0 ≤ p ≤ 1/2: inversion (walking the pmf up from
/// (1 − p)^n) when the mean is below 40, else the normal approximation with
/// continuity correction (Marsaglia's polar method), clamped to [0, n]. Only
/// IEEE arithmetic, sqrt and det_log: the same draws on every machine.
inline std::int64_t binomial(Rng& rng, std::int64_t n, double p) {
  if (n <= 0 || p <= 0) return 0;
  const double q = 1 - p, mean = static_cast<double>(n) * p;
  if (mean < 40) {
    // q^n by squaring; q ≥ 1/2 and n·p < 40 keep it above ~1e-35.
    double f = 1, base = q;
    for (std::int64_t e = n; e > 0; e >>= 1) {
      if (e & 1) f *= base;
      base *= base;
    }
    const double u = rng.uniform();
    double cdf = f;
    std::int64_t k = 0;
    while (u >= cdf && k < n) {
      f *= static_cast<double>(n - k) / static_cast<double>(k + 1) * (p / q);
      ++k;
      cdf += f;
      if (f == 0) break;  // rounding left u above the total: stop at the tail
    }
    return k;
  }
  double x, y, s;
  do {
    x = 2 * rng.uniform() - 1;
    y = 2 * rng.uniform() - 1;
    s = x * x + y * y;
  } while (s >= 1 || s == 0);
  const double z = x * std::sqrt(-2 * det_log(s) / s);
  const double k = std::floor(mean + std::sqrt(mean * q) * z + 0.5);
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::clamp(k, 0.0, 9.2e18)), 0, n);
}

/// Sorts and deduplicates out[from, end).
inline void sort_unique(std::vector<std::int64_t>& out, std::size_t from = 0) {
  std::sort(out.begin() + from, out.end());
  out.erase(std::unique(out.begin() + from, out.end()), out.end());
}

// ---- the CSR builder ---------------------------------------------------------

/// Below this many rows (or edges) loops run on the calling thread: a thread
/// team costs more than the work (batch members, tests).
inline constexpr std::int64_t kParallelRows = 4096;

/// Runs f(u, buf) for every source row u in [0, rows), in parallel when
/// there are many; buf is a thread's scratch vector, emptied before each
/// call. The first exception of any call is rethrown.
template <class F>
void for_each_source_row(std::int64_t rows, F&& f) {
  detail::FirstError err;
#pragma omp parallel if (rows >= kParallelRows)
  {
    std::vector<std::int64_t> buf;
#pragma omp for schedule(dynamic, 512)
    for (std::int64_t u = 0; u < rows; ++u)
      err.run([&] {
        buf.clear();
        f(u, buf);
      });
  }
  err.rethrow();
}

/// Builds a rows × cols CSR in two parallel passes over the source rows u
/// (a generator's own numbering), each stored as row row_of(u) (a bijection
/// of [0, rows); iterating in source order keeps a generator's own data
/// accesses sequential when rows are numbered at random).
///   count(u, buf):    the length of source row u (buf is scratch);
///   pattern(u, buf):  appends the sorted, distinct columns of source row u to
///                     the empty vector buf, count(u) of them;
///   values(r, cols, len, out): writes the values of output row r.
/// All must give the same result on every call. Pass 1 counts, a prefix sum
/// checks nnz against I, pass 2 fills. The row, column and nonzero counts are
/// checked against I before the arrays are allocated.
template <Value T, Index I, class RowOf, class Count, class Pattern, class Values>
Csr<T, I> build_csr(std::int64_t rows, std::int64_t cols, RowOf&& row_of, Count&& count,
                    Pattern&& pattern, Values&& values) {
  const I r = detail::checked_index<I>(rows, "rows");
  const I c = detail::checked_index<I>(cols, "columns");
  Array<I> row_ptr(static_cast<std::size_t>(rows) + 1);
  I* ptr = row_ptr.data();
  ptr[0] = 0;
  for_each_source_row(rows, [&](std::int64_t u, std::vector<std::int64_t>& buf) {
    ptr[row_of(u) + 1] = static_cast<I>(count(u, buf));  // ≤ cols, which fits I
  });
  std::int64_t nnz = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    nnz += ptr[i + 1];
    ptr[i + 1] = detail::checked_index<I>(nnz, "nnz");
  }
  Array<I> col_idx(static_cast<std::size_t>(nnz));
  Array<T> vals(static_cast<std::size_t>(nnz));
  I* col = col_idx.data();
  T* val = vals.data();
  for_each_source_row(rows, [&](std::int64_t u, std::vector<std::int64_t>& buf) {
    pattern(u, buf);
    const std::int64_t i = row_of(u), b = ptr[i];
    const auto len = static_cast<std::int64_t>(buf.size());
    if (len != ptr[i + 1] - b)
      throw InternalError("generator: row length differs between the two passes");
    for (std::int64_t k = 0; k < len; ++k)
      col[b + k] = static_cast<I>(buf[k]);
    values(i, buf.data(), len, val + b);
  });
  return Csr<T, I>(r, c, std::move(row_ptr), std::move(col_idx), std::move(vals), Check::Trusted);
}

/// The common case: rows in their own order, lengths from the pattern.
template <Value T, Index I, class Pattern, class Values>
Csr<T, I> build_csr(std::int64_t rows, std::int64_t cols, Pattern&& pattern, Values&& values) {
  return build_csr<T, I>(
      rows, cols, [](std::int64_t u) { return u; },
      [&](std::int64_t u, std::vector<std::int64_t>& buf) {
        pattern(u, buf);
        return static_cast<std::int64_t>(buf.size());
      },
      pattern, values);
}

/// values(): ±U[0.5, 1.5] from the row's own stream.
template <Value T>
auto random_values(std::uint64_t seed) {
  return [seed](std::int64_t i, const std::int64_t*, std::int64_t len, T* out) {
    Rng rng(hash(seed, static_cast<std::uint64_t>(i)));
    for (std::int64_t k = 0; k < len; ++k)
      out[k] = static_cast<T>(rng.value());
  };
}

/// values(): diagonally dominant — off-diagonal entries −U[0.5, 1.5], the
/// diagonal the sum of their magnitudes plus U[0.5, 1.5] (rows without a
/// diagonal entry just get the off-diagonal values).
template <Value T>
auto dominant_values(std::uint64_t seed) {
  return [seed](std::int64_t i, const std::int64_t* cols, std::int64_t len, T* out) {
    Rng rng(hash(seed, static_cast<std::uint64_t>(i)));
    double sum = 0;
    std::int64_t diag = -1;
    for (std::int64_t k = 0; k < len; ++k) {
      if (cols[k] == i) {
        diag = k;
        continue;
      }
      const double v = 0.5 + rng.uniform();
      sum += v;
      out[k] = static_cast<T>(-v);
    }
    if (diag >= 0) out[diag] = static_cast<T>(sum + 0.5 + rng.uniform());
  };
}

/// The same as dominant_values, but the off-diagonal value of (i, j) is drawn
/// from a stream keyed by the unordered pair {i, j}, so that a structurally
/// symmetric pattern gets symmetric values (a symmetric, diagonally dominant
/// matrix with a positive diagonal: positive definite).
template <Value T>
auto symmetric_dominant_values(std::uint64_t seed) {
  return [seed](std::int64_t i, const std::int64_t* cols, std::int64_t len, T* out) {
    double sum = 0;
    std::int64_t diag = -1;
    for (std::int64_t k = 0; k < len; ++k) {
      if (cols[k] == i) {
        diag = k;
        continue;
      }
      const auto a = static_cast<std::uint64_t>(std::min(i, cols[k]));
      const auto b = static_cast<std::uint64_t>(std::max(i, cols[k]));
      const double v = 0.5 + Rng(hash(seed, a, b)).uniform();
      sum += v;
      out[k] = static_cast<T>(-v);
    }
    if (diag >= 0) {
      const auto d = static_cast<std::uint64_t>(i);
      out[diag] = static_cast<T>(sum + 0.5 + Rng(hash(seed, d, d)).uniform());
    }
  };
}

// ---- the generators (one per class; spec already validated) ------------------

template <Value T, Index I>
Csr<T, I> stencil2d(std::int64_t width, std::int64_t rows, int points, Seeds seeds,
                    bool symmetric = false);
template <Value T, Index I>
Csr<T, I> stencil3d(std::int64_t n, int points, Seeds seeds, bool symmetric = false);
template <Value T, Index I>
Csr<T, I> fem(std::int64_t n, int block, Seeds seeds, bool symmetric = false);
template <Value T, Index I>
Csr<T, I> banded(std::int64_t n, int bands, Seeds seeds);
template <Value T, Index I>
Csr<T, I> road(std::int64_t n, Seeds seeds);
template <Value T, Index I>
Csr<T, I> random_uniform(std::int64_t n, double degree, Seeds seeds);
template <Value T, Index I>
Csr<T, I> rmat(int scale, double degree, Seeds seeds);
template <Value T, Index I>
Csr<T, I> chung_lu(std::int64_t n, double degree, Seeds seeds);
template <Value T, Index I>
Csr<T, I> dense_rows(std::int64_t n, double degree, std::int64_t count, Seeds seeds);
template <Value T, Index I>
Csr<T, I> mixed(std::int64_t n, Seeds seeds);

}  // namespace spx::gen
