// core/operations/memory_operation.h: the data-parallel degrees a memory estimate is offered.
#include <doctest/doctest.h>

#include "memory_operation.h"

using namespace autopar;

TEST_CASE("data-parallel degrees: divisors of the device count, at most the batch") {
  CHECK(data_parallel_degrees(8, 0) == std::vector<int>{1, 2, 4, 8});   // no batch: no bound
  CHECK(data_parallel_degrees(8, 64) == std::vector<int>{1, 2, 4, 8});
  CHECK(data_parallel_degrees(8, 2) == std::vector<int>{1, 2});        // a replica needs a sample
  CHECK(data_parallel_degrees(6, 4) == std::vector<int>{1, 2, 3});
  CHECK(data_parallel_degrees(1, 1) == std::vector<int>{1});
}
