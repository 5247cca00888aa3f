// Explicit instantiation over the supported (value, index) pairs. Each
// template is instantiated once, in the .cpp that defines it:
//
//   #define SPX_INST(T, I) template Csr<T, I> to_csr(const Coo<T, I>&);
//   SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#pragma once

#include <cstdint>

#define SPX_FOR_EACH_TYPE_PAIR(M) \
  M(float, std::int32_t)          \
  M(float, std::int64_t)          \
  M(double, std::int32_t)         \
  M(double, std::int64_t)

#define SPX_INSTANTIATE_CLASS_PAIR_(Tmpl, T, I) template class Tmpl<T, I>;
#define SPX_INSTANTIATE_CLASS(Tmpl)                       \
  SPX_INSTANTIATE_CLASS_PAIR_(Tmpl, float, std::int32_t)  \
  SPX_INSTANTIATE_CLASS_PAIR_(Tmpl, float, std::int64_t)  \
  SPX_INSTANTIATE_CLASS_PAIR_(Tmpl, double, std::int32_t) \
  SPX_INSTANTIATE_CLASS_PAIR_(Tmpl, double, std::int64_t)
