// main() of multi-PE GoogleTest programs: starts OpenSHMEM, runs the tests on every PE, finalizes.
// PE 0 prints the usual report; other PEs print only failures. The exit status is non-zero if any test
// failed on this PE, so rdsmrun fails the job.
#include <gtest/gtest.h>
#include <shmem.h>

#include <string>
#include <vector>

int main(int argc, char** argv) {
  shmem_init();
  std::vector<char*> args(argv, argv + argc);
  std::string brief = "--gtest_brief=1";
  if (shmem_my_pe() != 0) args.push_back(brief.data());
  int n = static_cast<int>(args.size());
  args.push_back(nullptr);  // argv[argc] is null, as a program's own
  testing::InitGoogleTest(&n, args.data());
  int rc = RUN_ALL_TESTS();
  shmem_finalize();
  return rc;
}
