// A seeded random number generator whose output is identical natively and in WebAssembly
// (std::*_distribution differs between libstdc++ and libc++, so conversions are done here).
#pragma once
#include <cstdint>

namespace autopar {

// xoshiro256** seeded through splitmix64 (Blackman & Vigna).
class Rng {
 public:
  // Seeds the four state words from `seed` with splitmix64.
  explicit Rng(uint64_t seed) {
    for (uint64_t& s : state_) s = splitmix64(seed);
  }
  // The next raw 64-bit output.
  uint64_t next() {
    uint64_t result = rotl(state_[1] * 5, 7) * 9;
    uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
  // Uniform integer in [0, n) for n >= 1, without modulo bias (rejection sampling).
  uint64_t below(uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do { x = next(); } while (x >= limit);
    return x % n;
  }
  // A stateless hash of (a, b) to [0, 1): the same inputs always give the same number.
  static double hash_uniform(uint64_t a, uint64_t b) {
    uint64_t s = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
    return double(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t state_[4];
};

}  // namespace autopar
