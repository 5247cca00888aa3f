#include "matrices.hpp"

#include <cstdint>

namespace spx::test {

template <Value T, Index I>
std::vector<TestMatrix<T, I>> real_matrices() {
  return {};
}

#define SPX_INST(T, I) template std::vector<TestMatrix<T, I>> real_matrices<T, I>();
SPX_INST(float, std::int32_t)
SPX_INST(float, std::int64_t)
SPX_INST(double, std::int32_t)
SPX_INST(double, std::int64_t)
#undef SPX_INST

}  // namespace spx::test
