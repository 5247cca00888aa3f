// What every format shares: shape, space, structure cache, and the checks
// used while validating user arrays.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "spx/core/array.hpp"
#include "spx/core/cache.hpp"
#include "spx/core/enums.hpp"
#include "spx/core/error.hpp"
#include "spx/core/types.hpp"

namespace spx {

/// Whether a format constructor validates its arrays. `Full` is the default
/// for user data; `Trusted` skips validation, for SpX's own conversions (correct
/// by construction) and for callers who vouch for their arrays (views below).
enum class Check : std::uint8_t { Full, Trusted };

// Views. `Csr::view`, `Coo::view` and `Csc::view` build a format over arrays
// the caller owns, on the host or the device (`space`), without a copy; any
// other format can be built the same way from `Array::view`s given to its
// constructor. The contract:
//  - the caller keeps the arrays alive, unmoved and with an unchanged
//    structure, for as long as the matrix is used; SpX never frees them;
//  - with Check::Full (the default) construction validates exactly as for
//    owning arrays, with the same messages: it reads the arrays (device
//    arrays are copied to the host for that, as for owning ones). COO also
//    reads its indices under Check::Trusted, to learn whether they are
//    sorted. Check::Trusted skips validation: the caller vouches for them;
//  - the arrays are taken as const: products, conversions and validation only
//    read a matrix's arrays. Values may still be changed in place, by the
//    caller in its own array or through `values()` (which writes the caller's
//    memory, so not for read-only memory); the structure must not change,
//    which keeps what the structure cache holds valid;
//  - `clone()`, `to(space)` and every conversion return owning matrices.

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

/// A view of the caller's array `name` of a `format` view (see "Views"
/// above); a null or misaligned pointer raises InvalidInput naming both.
/// The const is dropped here only: SpX never writes a matrix's arrays.
template <class T>
Array<T> view_of(std::string_view format, std::string_view name, std::span<const T> a,
                 Space space) {
  check_view(std::string(format) + " view: " + std::string(name), a.data(), a.size(), sizeof(T),
             alignof(T));
  return Array<T>::view(const_cast<T*>(a.data()), a.size(), space);
}

/// Throws InvalidInput if `rows` or `cols` is negative.
void check_shape(std::string_view format, std::int64_t rows, std::int64_t cols);
/// Throws InvalidInput unless every array lives in `space`.
void check_same_space(std::string_view format, std::initializer_list<Space> spaces);

}  // namespace detail
}  // namespace spx
