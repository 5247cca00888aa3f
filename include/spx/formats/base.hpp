// What every format shares: shape, space, structure cache, and the checks
// used while validating user arrays.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "spx/core/array.hpp"
#include "spx/core/cache.hpp"
#include "spx/core/enums.hpp"
#include "spx/core/error.hpp"
#include "spx/core/types.hpp"

namespace spx {

/// Whether a format constructor validates its arrays. `Full` is the default
/// for user data; `Trusted` skips validation and is meant for SpX's own
/// conversions, whose output is correct by construction.
enum class Check : std::uint8_t { Full, Trusted };

/// What a caller that assembled a format's arrays itself vouches for, given
/// to the constructors that take it (ELL, SELL, HLL, COO, DIA, HDI, BCSR):
/// they skip validation like Check::Trusted and, unlike it, do not read the
/// arrays to count entries (which would copy device arrays to the host).
struct Known {
  std::int64_t nnz = 0;  ///< true entries (padding excluded, explicit zeros included)
  bool sorted = false;   ///< COO: entries strictly increasing in (row, column)
};

namespace detail {

template <Index I>
class FormatBase {
 public:
  I rows() const noexcept { return rows_; }
  I cols() const noexcept { return cols_; }
  Space space() const noexcept { return space_; }
  /// Preprocessing kept with the matrix; see StructureCache.
  StructureCache& structure_cache() const { return *cache_; }

 protected:
  FormatBase() = default;
  FormatBase(I rows, I cols, Space space) : rows_(rows), cols_(cols), space_(space) {}
  FormatBase(FormatBase&&) noexcept = default;
  FormatBase& operator=(FormatBase&&) noexcept = default;
  ~FormatBase() = default;

  I rows_ = 0;
  I cols_ = 0;
  Space space_ = Space::Host;
  std::shared_ptr<StructureCache> cache_ = std::make_shared<StructureCache>();
};

/// Throws InvalidInput if `rows` or `cols` is negative.
void check_shape(std::string_view format, std::int64_t rows, std::int64_t cols);
/// Throws InvalidInput unless every array lives in `space`.
void check_same_space(std::string_view format, std::initializer_list<Space> spaces);

}  // namespace detail
}  // namespace spx
