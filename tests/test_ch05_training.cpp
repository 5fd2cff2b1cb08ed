#define BOOST_TEST_MODULE ch05_training
#include <boost/test/unit_test.hpp>
BOOST_AUTO_TEST_CASE(stub) { BOOST_TEST(true); }
