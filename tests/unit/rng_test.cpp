// Known-answer vectors of the seeded generator (core/model/rng.h): every search, random strategy
// and accuracy sample depends on its exact stream, natively and in WebAssembly, so its first
// outputs are pinned here to figures computed outside the code.
//
// The reference is the published algorithm redone in Python integers (masking to 64 bits):
//   M = 2**64 - 1
//   def splitmix(x):                      # Vigna's splitmix64: state += golden gamma, then mix
//       x = (x + 0x9E3779B97F4A7C15) & M
//       z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
//       z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
//       return x, z ^ (z >> 31)
//   def rotl(x, k): return ((x << k) | (x >> (64 - k))) & M
//   def next(s):                          # xoshiro256**
//       r = (rotl((s[1] * 5) & M, 7) * 9) & M
//       t = (s[1] << 17) & M
//       s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45)
//       return r
// seeded with four successive splitmix outputs from the seed. Two checks of that reference
// against published vectors: splitmix64 from 0 first gives 0xE220A8397B1DCDAF (the value in
// Vigna's splitmix64.c test and many ports), and xoshiro256** from the state {1, 2, 3, 4} gives
// 11520, 0, 1509978240, 1215971899390074240 (rand_xoshiro's test vector).
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "rng.h"

using namespace autopar;

namespace {
std::vector<uint64_t> first_outputs(uint64_t seed, int n) {
  Rng rng(seed);
  std::vector<uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(rng.next());
  return out;
}
}  // namespace

TEST_CASE("Rng: the first outputs of seeds 0, 1 and 42 are xoshiro256** seeded by splitmix64") {
  // Seed 0: state {0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f, 0xf88bb8a8724c81ec}
  // (the first word is splitmix64's published first output from 0).
  CHECK(first_outputs(0, 5) == std::vector<uint64_t>{0x99ec5f36cb75f2b4ull, 0xbf6e1f784956452aull, 0x1a5f849d4933e6e0ull,
                                                     0x6aa594f1262d2d2cull, 0xbba5ad4a1f842e59ull});
  // Seed 1 (SearchOptions' default): state {0x910a2dec89025cc1, 0xbeeb8da1658eec67, 0xf893a2eefb32555e, 0x71c18690ee42c90b}.
  CHECK(first_outputs(1, 5) == std::vector<uint64_t>{0xb3f2af6d0fc710c5ull, 0x853b559647364ceaull, 0x92f89756082a4514ull,
                                                     0x642e1c7bc266a3a7ull, 0xb27a48e29a233673ull});
  CHECK(first_outputs(42, 5) == std::vector<uint64_t>{0x15780b2e0c2ec716ull, 0x6104d9866d113a7eull, 0xae17533239e499a1ull,
                                                      0xecb8ad4703b360a1ull, 0xfde6dc7fe2ec5e64ull});
}

TEST_CASE("Rng: uniform() takes the top 53 bits, below() rejects the biased tail, hash_uniform is splitmix64 of (a, b)") {
  // Seed 1: (0xb3f2af6d0fc710c5 >> 11) / 2^53 = 0.7029218331588505, and so on for the next two.
  Rng u(1);
  CHECK(u.uniform() == 0.7029218331588505);
  CHECK(u.uniform() == 0.5204366199388569);
  CHECK(u.uniform() == 0.5741057000197225);
  // below(10) from seed 7: x % 10 of each output under 2^64 - 1 - (2^64 - 1) % 10 (none of the
  // first eight is rejected: the tail holds 6 values of 2^64).
  Rng b(7);
  std::vector<uint64_t> draws;
  for (int i = 0; i < 8; ++i) draws.push_back(b.below(10));
  CHECK(draws == std::vector<uint64_t>{4, 4, 8, 4, 4, 1, 6, 6});
  // hash_uniform(a, b) = splitmix64 once from a * 0x9E3779B97F4A7C15 ^ (b + 0x632BE59BD9B4E019), top 53 bits.
  CHECK(Rng::hash_uniform(3, 5) == 0.8291362894094212);
  CHECK(Rng::hash_uniform(0, 0) == 0.3623965548971775);
}
