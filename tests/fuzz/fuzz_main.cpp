// The entry point of one libFuzzer target: FUZZ_TARGET names the reader of fuzz_inputs.cpp it
// exercises (compiled once for all the targets; CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <string>

namespace autopar_fuzz {
void FUZZ_TARGET(const std::string& text);
}  // namespace autopar_fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 16) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  autopar_fuzz::FUZZ_TARGET(text);
  return 0;
}
