// Logical device meshes and collective costs (alpha-beta model per mesh axis).
#include "device_mesh.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace autopar {

std::string DeviceMesh::shape_string() const { return std::to_string(rows()) + "x" + std::to_string(cols()); }

namespace {

// Alpa rounds the alpha-beta time to a whole number and adds a constant per collective kind.
double alpa_rounded(double time, double constant) { return std::round(time) + constant; }

}  // namespace

double all_reduce_cost(const MeshAxis& a, double bytes) {
  if (a.size <= 1) return 0;
  const double t = a.alpha + 2.0 * a.beta * double(a.size - 1) / double(a.size) * bytes;
  return a.alpa_convention ? alpa_rounded(t, 0.01) : t;
}

double all_gather_cost(const MeshAxis& a, double bytes) {
  if (a.size <= 1) return 0;
  const double t = a.alpha + a.beta * double(a.size - 1) / double(a.size) * bytes;
  return a.alpa_convention ? alpa_rounded(t, 0.1) : t;
}

double reduce_scatter_cost(const MeshAxis& a, double bytes) {
  if (a.size <= 1) return 0;
  const double t = a.alpha + a.beta * double(a.size - 1) / double(a.size) * bytes;
  return a.alpa_convention ? alpa_rounded(t, 0.001) : t;
}

double all_to_all_cost(const MeshAxis& a, double bytes) {
  if (a.size <= 1) return 0;
  if (!a.alpa_convention) return a.alpha + a.beta * double(a.size - 1) / double(a.size) * bytes;
  // Alpa prices the whole tensor (n * B) at (n-1)/n^2 per byte, times its penalty factor n/2.
  const double n = double(a.size);
  return alpa_rounded(a.alpha + a.beta * (n - 1) / n / n * (n * bytes) * (n / 2), 0.001);
}

double replicated_penalty(const DeviceMesh& mesh) {
  if (!mesh.alpa_conventions()) return 0;
  double sum = 0;
  for (const MeshAxis& a : mesh.axis) sum += alpa_rounded(a.alpha + 2.0 * a.beta * double(a.size - 1) / double(a.size), 0.01);
  return std::round(sum);
}

namespace {

std::string shapes_for(int n) {
  std::string s;
  for (const std::string& shape : mesh_shapes(n)) s += (s.empty() ? "" : ", ") + shape;
  return s;
}

}  // namespace

Result<DeviceMesh> mesh_from_cluster(int rows, int cols, const Cluster& cluster, const std::string& arg_path) {
  const int n = cluster.num_devices();
  if (int64_t(rows) * cols != n)
    return make_error(ErrorCode::bad_mesh, "mesh " + std::to_string(rows) + "x" + std::to_string(cols) + " has " + std::to_string(int64_t(rows) * cols) +
                                      " devices but the cluster has " + std::to_string(n) + "; use one of " + shapes_for(n),
                      arg_path);
  DeviceMesh m;
  m.axis[0].size = rows;
  m.axis[1].size = cols;
  const int g = cluster.gpus_per_node;
  // Axis 1 holds consecutive devices r*C .. r*C+C-1: inside one node when C divides into G.
  m.axis[1].crosses_nodes = !(cols <= g && g % cols == 0);
  // Axis 0 strides by C: inside one node only when the whole mesh fits in one node.
  m.axis[0].crosses_nodes = rows > 1 && n > g;
  // A collective over an axis runs in every group of it at once. The rings of axis 0 (one per
  // column) leave a node once each: min(G, C) transfers share its NICs; axis 1's groups (runs of
  // consecutive devices) leave it once. inter_node is one NIC: a node with fewer NICs than
  // leaving transfers shares them (cluster.h, inter_node_shared).
  const int streams[2] = {std::min(g, cols), 1};
  for (int i = 0; i < 2; ++i) {
    MeshAxis& a = m.axis[i];
    const LinkSpec link = a.crosses_nodes ? cluster.inter_node_shared(streams[i]) : cluster.intra_node;
    a.alpha = link.latency_ms();
    a.beta = 1.0 / link.bandwidth_bytes_per_ms();
  }
  return m;
}

Result<DeviceMesh> mesh_from_costs(int rows, int cols, const std::string& alphas, const std::string& betas) {
  auto pair = [](const std::string& text, const char* name, double out[2]) -> Status {
    size_t comma = text.find(',');
    const std::string parts[2] = {text.substr(0, comma), comma == std::string::npos ? "" : text.substr(comma + 1)};
    for (int i = 0; i < 2; ++i) {
      char* end = nullptr;
      out[i] = std::strtod(parts[i].c_str(), &end);
      if (parts[i].empty() || *end || !std::isfinite(out[i]) || out[i] < 0 || out[i] > 1e12)
        return make_error(ErrorCode::bad_value, std::string("--") + name + " needs two numbers >= 0 separated by a comma (axis 0, axis 1), e.g. 1,0.1; got '" + text + "'",
                          std::string("--") + name);
    }
    return Ok{};
  };
  DeviceMesh m;
  double a[2], b[2];
  if (auto s = pair(alphas, "alpha", a); !s.ok()) return s.error();
  if (auto s = pair(betas, "beta", b); !s.ok()) return s.error();
  if (int64_t(rows) * cols > kMaxDevices)
    return make_error(ErrorCode::too_large, "the mesh has more than " + std::to_string(kMaxDevices) + " devices", "--mesh");
  m.unitless = true;
  m.axis[0] = {rows, a[0], b[0], false, true};
  m.axis[1] = {cols, a[1], b[1], false, true};
  return m;
}

DeviceMesh flattened_mesh(const DeviceMesh& m) {
  DeviceMesh f = m;
  const double alpha = std::max(m.axis[0].alpha, m.axis[1].alpha), beta = std::min(m.axis[0].beta, m.axis[1].beta);
  const bool crosses = m.axis[0].crosses_nodes || m.axis[1].crosses_nodes;
  f.axis[0] = {m.devices(), alpha, beta, crosses, m.axis[0].alpa_convention};
  f.axis[1] = {1, alpha, beta, false, m.axis[1].alpa_convention};
  return f;
}

}  // namespace autopar
