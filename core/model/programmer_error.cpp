// See programmer_error.h.
#include "programmer_error.h"

#include <cstdio>
#include <cstdlib>

namespace autopar {

void programmer_error(const char* file, int line, const char* what) {
  std::fprintf(stderr, "autopar: programmer error at %s:%d: %s\n", file, line, what);
  std::fflush(stderr);
  std::abort();
}

}  // namespace autopar
