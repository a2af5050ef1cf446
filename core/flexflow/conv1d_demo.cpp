// Numerical check of the six (for 4 GPUs) SOAP splits of a 1-D convolution.
#include "conv1d_demo.h"

#include <algorithm>
#include <cmath>

#include "rng.h"

namespace autopar {
namespace {

struct ConvShape { int64_t n, c_in, c_out, length, k, pad; };

// out[n][co][l] = sum over ci, t of w[co][ci][t] * x[n][ci][l + t - pad] ("same" padding),
// computed for samples [n0,n1), channels [c0,c1), positions [l0,l1) from a local input that
// holds positions [x_lo, x_hi) of samples n0.. and all channels.
void convolve(const ConvShape& s, const std::vector<float>& x, int64_t x_lo, int64_t x_hi, const std::vector<float>& w,
              int64_t n0, int64_t n1, int64_t c0, int64_t c1, int64_t l0, int64_t l1, std::vector<float>& out) {
  const int64_t width = x_hi - x_lo;
  for (int64_t n = n0; n < n1; ++n)
    for (int64_t co = c0; co < c1; ++co)
      for (int64_t l = l0; l < l1; ++l) {
        double acc = 0;
        for (int64_t ci = 0; ci < s.c_in; ++ci)
          for (int64_t t = 0; t < s.k; ++t) {
            int64_t pos = l + t - s.pad;
            if (pos < 0 || pos >= s.length) continue;   // zero padding
            acc += double(w[size_t(((co - c0) * s.c_in + ci) * s.k + t)]) *
                   double(x[size_t(((n - n0) * s.c_in + ci) * width + (pos - x_lo))]);
          }
        out[size_t((n * s.c_out + co) * s.length + l)] = float(acc);
      }
}

}  // namespace

Result<std::vector<Conv1dSplit>> conv1d_splits(const Graph& conv, int gpus) {
  if (gpus < 1 || gpus > 64 || (gpus & (gpus - 1)) != 0)
    return make_error(ErrorCode::bad_value, "--gpus must be a power of two between 1 and 64, not " + std::to_string(gpus), "--gpus");
  if (conv.ops.size() != 1 || conv.ops[0].spec.kind != OpKind::conv1d)
    return make_error(ErrorCode::bad_value, "the conv1d demo needs the conv1d model (one conv1d op)", "--model");
  const Op& op = conv.ops[0];
  ConvShape s{op.inputs[0].shape[0], op.inputs[0].shape[1], op.output.shape[1], op.inputs[0].shape[2],
              op.geometry.kernel, op.geometry.padding};
  if (op.geometry.stride != 1 || op.output.shape[2] != s.length)
    return make_error(ErrorCode::bad_value, "the conv1d demo uses stride 1 and 'same' padding", "--model");
  if (s.n * s.c_in * s.length > (int64_t(1) << 22) || s.n * s.c_out * s.length * s.c_in * s.k > (int64_t(1) << 30))
    return make_error(ErrorCode::too_large, "the conv1d demo computes the convolution for real; keep it under 2^30 multiply-adds", "--model");
  Rng rng(15779);
  std::vector<float> x(size_t(s.n * s.c_in * s.length)), w(size_t(s.c_out * s.c_in * s.k));
  for (float& v : x) v = float(2 * rng.uniform() - 1);
  for (float& v : w) v = float(2 * rng.uniform() - 1);
  std::vector<float> reference(size_t(s.n * s.c_out * s.length));
  convolve(s, x, 0, s.length, w, 0, s.n, 0, s.c_out, 0, s.length, reference);

  std::vector<Conv1dSplit> splits;
  for (int sd = 1; sd <= gpus; sd *= 2)
    for (int ad = 1; sd * ad <= gpus; ad *= 2) {
      const int pd = gpus / (sd * ad);
      Conv1dSplit r;
      r.sample = sd;
      r.attribute = ad;
      r.parameter = pd;
      const char* names[] = {"sample", "attribute", "parameter"};
      const int degrees[] = {sd, ad, pd};
      for (int d = 0; d < 3; ++d)
        if (degrees[d] > 1) r.name += (r.name.empty() ? "" : " x ") + std::string(names[d]) + " " + std::to_string(degrees[d]);
      if (r.name.empty()) r.name = "single device";
      if (s.n % sd || s.length % ad || s.c_out % pd) continue;   // not an even split
      std::vector<float> assembled(reference.size(), 0.0f);
      for (int a = 0; a < sd; ++a)
        for (int b = 0; b < ad; ++b)
          for (int c = 0; c < pd; ++c) {
            const int64_t n0 = a * s.n / sd, n1 = (a + 1) * s.n / sd;
            const int64_t l0 = b * s.length / ad, l1 = (b + 1) * s.length / ad;
            const int64_t c0 = c * s.c_out / pd, c1 = (c + 1) * s.c_out / pd;
            // What this device holds: its samples, every input channel, its positions plus the halo.
            const int64_t x_lo = std::max<int64_t>(0, l0 - s.pad), x_hi = std::min<int64_t>(s.length, l1 - 1 - s.pad + s.k);
            std::vector<float> local_x(size_t((n1 - n0) * s.c_in * (x_hi - x_lo)));
            for (int64_t n = n0; n < n1; ++n)
              for (int64_t ci = 0; ci < s.c_in; ++ci)
                for (int64_t p = x_lo; p < x_hi; ++p)
                  local_x[size_t(((n - n0) * s.c_in + ci) * (x_hi - x_lo) + (p - x_lo))] = x[size_t((n * s.c_in + ci) * s.length + p)];
            std::vector<float> local_w(w.begin() + c0 * s.c_in * s.k, w.begin() + c1 * s.c_in * s.k);
            convolve(s, local_x, x_lo, x_hi, local_w, n0, n1, c0, c1, l0, l1, assembled);
            r.input_elements_per_device = std::max<int64_t>(r.input_elements_per_device, int64_t(local_x.size()));
            r.halo_elements_per_device = std::max<int64_t>(r.halo_elements_per_device, (n1 - n0) * s.c_in * ((x_hi - x_lo) - (l1 - l0)));
            r.weight_elements_per_device = int64_t(local_w.size());
            r.output_elements_per_device = (n1 - n0) * (c1 - c0) * (l1 - l0);
          }
      // Sample and attribute splits replicate the weights, whose gradients must then be summed.
      r.sync_elements = sd * ad > 1 ? r.weight_elements_per_device : 0;
      for (size_t i = 0; i < reference.size(); ++i)
        r.max_abs_diff = std::max(r.max_abs_diff, double(std::fabs(assembled[i] - reference[i])));
      splits.push_back(r);
    }
  return splits;
}

}  // namespace autopar
