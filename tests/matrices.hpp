// The matrices kernel tests run on: hand-made adversarial cases, one member
// of every generator class, and the real SuiteSparse matrices in
// ../shared/matrices/real/; and the ways tests build their own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spx/formats/csr.hpp"

namespace spx::test {

template <Value T, Index I>
struct TestMatrix {
  std::string name;
  Csr<T, I> A;
};

/// 0×0, 1×1, empty rows, an all-empty matrix, one dense row, a single column,
/// rectangular (wide and tall), a diagonal.
template <Value T, Index I>
std::vector<TestMatrix<T, I>> handmade_matrices();

/// One small member of every generator class.
template <Value T, Index I>
std::vector<TestMatrix<T, I>> generated_matrices();

/// Every matrix in ../shared/matrices/real/ (empty when the folder is absent;
/// the caller logs that).
template <Value T, Index I>
std::vector<TestMatrix<T, I>> real_matrices();

/// All of the above.
template <Value T, Index I>
std::vector<TestMatrix<T, I>> all_test_matrices() {
  auto all = handmade_matrices<T, I>();
  for (auto* more : {&generated_matrices<T, I>, &real_matrices<T, I>})
    for (auto& m : more())
      all.push_back(std::move(m));
  return all;
}

/// spx::generate of a spec as `spx gen` reads it ("stencil2d:n=150,points=5")
/// with `seed`, named by describe().
template <Value T, Index I>
TestMatrix<T, I> generated(std::string_view spec, std::uint64_t seed);

/// A rows × cols CSR with entries at (r[k], c[k]) (any order, duplicates
/// summed) and random values in ±[0.5, 1.5] from `seed`.
template <Value T, Index I>
Csr<T, I> csr_from_entries(std::int64_t rows, std::int64_t cols, const std::vector<I>& r,
                           const std::vector<I>& c, std::uint64_t seed);

/// An n×n symmetric CSR from its entries on and below the diagonal (i >= j,
/// repeats dropped), with random values in ±[0.5, 1.5] from `seed` (the diagonal
/// explicit zeros when `zero_diagonal`), each mirrored above the diagonal.
template <Value T, Index I>
Csr<T, I> symmetric_from_lower(std::int64_t n, std::vector<std::pair<I, I>> lower,
                               std::uint64_t seed, bool zero_diagonal = false);

}  // namespace spx::test
