// The matrices kernel tests run on: hand-made adversarial cases, one member
// of every generator class, and the real SuiteSparse matrices in
// ../shared/matrices/real/.
#pragma once

#include <string>
#include <vector>

#include "spx/formats/csr.hpp"

namespace spx::test {

template <Value T, Index I>
struct TestMatrix {
  std::string name;
  Csr<T, I> A;
};

/// 0×0, 1×1, empty rows, an all-empty matrix, one dense row, a single column,
/// rectangular (wide and tall), a diagonal.  (matrices.cpp)
template <Value T, Index I>
std::vector<TestMatrix<T, I>> handmade_matrices();

/// One small member of every generator class.  (matrices_generated.cpp)
template <Value T, Index I>
std::vector<TestMatrix<T, I>> generated_matrices();

/// Every matrix in ../shared/matrices/real/ (empty when the folder is absent;
/// the caller logs that).  (matrices_real.cpp)
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

}  // namespace spx::test
