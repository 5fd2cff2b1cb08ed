/// \file test_main.cpp
/// \brief The one `main` every test program links (Boost.Test, shared-library variant).
///
/// Test files include Boost.Test through the tests' precompiled header, so none of them can define
/// BOOST_TEST_MODULE early enough to get a generated `main`; this file is built once instead, and
/// names each master suite after its program (test_ch01_mixing, ...).
#include <boost/test/unit_test.hpp>
#include <filesystem>

namespace {

bool init_unit_test() {
  auto& master = boost::unit_test::framework::master_test_suite();
  if (master.argc > 0) master.p_name.value = std::filesystem::path(master.argv[0]).filename().string();
  return true;
}

}  // namespace

int main(int argc, char* argv[]) { return boost::unit_test::unit_test_main(&init_unit_test, argc, argv); }
