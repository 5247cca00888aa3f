// The tests enumerate the registry with the baselines in it (cuSPARSE,
// cuBLAS, Eigen; target spx_baselines), as the benchmark does: a global
// environment installs them when the test program starts, before any test.
#include <gtest/gtest.h>

#include "baselines/baselines.hpp"

namespace {

class BaselinesEnvironment : public testing::Environment {
 public:
  void SetUp() override { spx::baselines::install(); }
};

[[maybe_unused]] testing::Environment* const kEnvironment =
    testing::AddGlobalTestEnvironment(new BaselinesEnvironment);

}  // namespace
