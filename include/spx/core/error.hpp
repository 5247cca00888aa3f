// The error hierarchy. Every message names what was wrong and what was
// expected; nothing in the library calls exit() or aborts on bad input.
//
//   Error                  base of everything SpX throws
//   ├─ InvalidInput        user data violates a documented invariant
//   ├─ DimensionMismatch   operand shapes do not agree
//   ├─ Unsupported         a valid request this build or format will not do
//   ├─ OutOfMemory         an allocation failed (carries the size asked for)
//   ├─ IoError             reading or writing a file failed (file and line)
//   ├─ CudaError           a CUDA or cuSPARSE call failed
//   └─ InternalError       a broken internal invariant: a bug in SpX
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace spx {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InvalidInput : public Error {
 public:
  using Error::Error;
};

class DimensionMismatch : public Error {
 public:
  using Error::Error;
};

class Unsupported : public Error {
 public:
  using Error::Error;
};

class OutOfMemory : public Error {
 public:
  OutOfMemory(const std::string& what, std::size_t bytes) : Error(what), bytes_(bytes) {}
  /// The size of the allocation that failed, in bytes.
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::size_t bytes_;
};

class IoError : public Error {
 public:
  using Error::Error;
};

class CudaError : public Error {
 public:
  using Error::Error;
};

class InternalError : public Error {
 public:
  using Error::Error;
};

}  // namespace spx
