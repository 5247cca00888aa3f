// Construction and validation of DIA-LP (DIA with reduced-precision values):
// the structure is validated by DIA's own constructor, over the values
// widened to T.
#include <string>
#include <vector>

#include "core/convert_lowp.hpp"
#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "spx/formats/dia_lp.hpp"

namespace spx {
template <Value T, Index I>
DiaLp<T, I>::DiaLp(Dia<T, I> structure, Array<storage_type> values)
    : detail::FormatBase<I>(structure.rows(), structure.cols(), values.space()),
      d_(std::move(structure)),
      values_(std::move(values)) {
  d_.values() = Array<T>(0, values_.space());
}

template <Value T, Index I>
DiaLp<T, I>::DiaLp(I rows, I cols, Array<I> offsets, Array<storage_type> values,
                   ExplicitZeros<I> zeros, Check check)
    : detail::FormatBase<I>(rows, cols, values.space()) {
  try {
    // Trusted: Dia counts the nonzeros over the widened values too.
    d_ = Dia<T, I>(rows, cols, std::move(offsets), detail::widened<T>(values), std::move(zeros),
                   check);
  } catch (const InvalidInput& e) {
    throw InvalidInput(std::string("DIA_LP (DIA's layout, values widened to T): ") + e.what());
  } catch (...) {
    detail::rethrow_allocation_failure("DIA_LP");
  }
  d_.values() = Array<T>(0, values.space());
  values_ = std::move(values);
}

template <Value T, Index I>
DiaLp<T, I> DiaLp<T, I>::to(Space space) const {
  return DiaLp(d_.to(space), values_.to(space));
}

SPX_INSTANTIATE_CLASS(DiaLp)

}  // namespace spx
