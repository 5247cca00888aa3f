// Construction and validation of SELL-LP (SELL with reduced-precision
// values): the structure is validated by SELL's own constructor, over the
// values widened to T.
#include <string>
#include <vector>

#include "core/convert_lowp.hpp"
#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "spx/formats/sell_lp.hpp"

namespace spx {
template <Value T, Index I>
SellLp<T, I>::SellLp(Sell<T, I> structure, Array<storage_type> values)
    : detail::FormatBase<I>(structure.rows(), structure.cols(), values.space()),
      s_(std::move(structure)),
      values_(std::move(values)) {
  s_.values() = Array<T>(0, values_.space());
}

template <Value T, Index I>
SellLp<T, I>::SellLp(I rows, I cols, int slice_size, int sigma, int threads_per_row,
                     Array<I> slice_ptr, Array<I> slice_width, Array<I> col_idx,
                     Array<storage_type> values, Array<I> row_len, Array<I> perm, Check check)
    : detail::FormatBase<I>(rows, cols, values.space()) {
  try {
    Array<T> wide = check == Check::Full ? detail::widened<T>(values) : Array<T>(0, values.space());
    s_ = Sell<T, I>(rows, cols, slice_size, sigma, threads_per_row, std::move(slice_ptr),
                    std::move(slice_width), std::move(col_idx), std::move(wide), std::move(row_len),
                    std::move(perm), check);
  } catch (const InvalidInput& e) {
    throw InvalidInput(std::string("SELL_LP (SELL's layout, values widened to T): ") + e.what());
  } catch (...) {
    detail::rethrow_allocation_failure("SELL_LP");
  }
  s_.values() = Array<T>(0, values.space());
  values_ = std::move(values);
}

template <Value T, Index I>
SellLp<T, I> SellLp<T, I>::to(Space space) const {
  return SellLp(s_.to(space), values_.to(space));
}

SPX_INSTANTIATE_CLASS(SellLp)

}  // namespace spx
