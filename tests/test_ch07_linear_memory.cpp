#define BOOST_TEST_MODULE ch07_linear_memory
#include <boost/test/unit_test.hpp>
BOOST_AUTO_TEST_CASE(placeholder) {}
