// The MPI main of the distributed tests: every rank runs every test (the
// operations are collective); rank 0 prints the usual report, the other
// ranks print only their failures, prefixed with their rank. The exit code
// is non-zero when a test failed on any rank.
#include <cstdio>

#include <gtest/gtest.h>
#include <mpi.h>

namespace {

class RankFailures : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailures(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result()->Failed())
      std::fprintf(stderr, "[rank %d] FAILED %s.%s\n", rank_, info.test_suite_name(), info.name());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailures(rank));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
