// The intra-op ILP solved with GLPK (Alpa section 4.2). The only file that includes GLPK.
//
// The formulation, written once; build_ilp() below creates exactly these rows and columns
// (check_problem, fold_separable_edges, build_ilp, run_glpk and read_choices are the steps):
//   variables  s[v][i] in {0,1}       node v takes strategy i
//              e[k][i][j] in [0,1]    edge k = (u,v): u takes i and v takes j
//   minimise   sum_v sum_i c[v][i] s[v][i]  +  sum_k sum_ij R[k][i][j] e[k][i][j]
//   (C1) for every node v:               sum_i s[v][i] = 1                 (one strategy each)
//   (C2) for every edge k=(u,v), each i: sum_j e[k][i][j] = s[u][i]       (row sums)
//   (C3) for every edge k=(u,v), each j: sum_i e[k][i][j] = s[v][j]       (column sums)
//   (C4) with a memory budget M:         sum_v sum_i m[v][i] s[v][i] <= M
// With binary s, C2 and C3 leave e[k] a single 1 at (choice of u, choice of v): the quadratic
// term s_u^T R s_v becomes linear without big-M constants. Edges whose matrix is
// R[i][j] = a[i] + b[j] (in particular all-zero ones) need no e: a and b are added to the two
// nodes' costs instead, which keeps the ILP small.
//
// GLPK aborts the process on API misuse, so every number is checked before it gets there, a
// time limit is always set, and every return code and status maps to a result.
#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "intra_op_problem.h"

namespace autopar {
namespace {

// True when R[i][j] == a[i] + b[j] for all i, j (up to rounding); fills a and b.
bool separable(const IntraProblem::Edge& e, int ku, int kv, std::vector<double>& a, std::vector<double>& b) {
  a.assign(size_t(ku), 0);
  b.assign(size_t(kv), 0);
  for (int j = 0; j < kv; ++j) b[size_t(j)] = e.cost[size_t(j)];
  for (int i = 0; i < ku; ++i) a[size_t(i)] = e.cost[size_t(i * kv)] - e.cost[0];
  for (int i = 0; i < ku; ++i)
    for (int j = 0; j < kv; ++j) {
      double want = a[size_t(i)] + b[size_t(j)], got = e.cost[size_t(i * kv + j)];
      if (std::fabs(want - got) > 1e-12 * (1 + std::fabs(got))) return false;
    }
  return true;
}

struct GlpkProblem {
  glp_prob* lp = glp_create_prob();
  GlpkProblem() = default;
  GlpkProblem(const GlpkProblem&) = delete;
  GlpkProblem& operator=(const GlpkProblem&) = delete;
  ~GlpkProblem() { glp_delete_prob(lp); }
};

// Every number GLPK will see is checked first: GLPK aborts the process on a malformed problem.
Status check_problem(const IntraProblem& p) {
  const int n = int(p.node_cost.size());
  for (int v = 0; v < n; ++v) {
    if (p.node_cost[size_t(v)].empty())
      return make_error(ErrorCode::internal, "node " + std::to_string(v) + " has no strategy", "");
    for (size_t i = 0; i < p.node_cost[size_t(v)].size(); ++i)
      if (!std::isfinite(p.node_cost[size_t(v)][i]) || !std::isfinite(p.node_memory[size_t(v)][i]))
        return make_error(ErrorCode::internal, "a strategy cost is not finite", "");
  }
  for (const auto& e : p.edges) {
    if (e.u < 0 || e.u >= n || e.v < 0 || e.v >= n || e.cost.size() != size_t(p.choices(e.u) * p.choices(e.v)))
      return make_error(ErrorCode::internal, "an edge of the intra-op problem is malformed", "");
    for (double c : e.cost) if (!std::isfinite(c)) return make_error(ErrorCode::internal, "a resharding cost is not finite", "");
  }
  if (!std::isfinite(p.memory_budget) || p.memory_budget < 0)
    return make_error(ErrorCode::bad_value, "the memory budget must be a positive number of bytes", "--memory-budget-bytes");
  return Ok{};
}

// The objective's node costs with separable edges folded in, and the edges that still need
// their e variables (see the header comment).
struct FoldedCosts {
  std::vector<std::vector<double>> node_cost;
  std::vector<const IntraProblem::Edge*> kept;
};

FoldedCosts fold_separable_edges(const IntraProblem& p) {
  FoldedCosts f{p.node_cost, {}};
  std::vector<double> a, b;
  for (const auto& e : p.edges) {
    if (separable(e, p.choices(e.u), p.choices(e.v), a, b)) {
      for (int i = 0; i < p.choices(e.u); ++i) f.node_cost[size_t(e.u)][size_t(i)] += a[size_t(i)];
      for (int j = 0; j < p.choices(e.v); ++j) f.node_cost[size_t(e.v)][size_t(j)] += b[size_t(j)];
    } else {
      f.kept.push_back(&e);
    }
  }
  return f;
}

// Where build_ilp put the s[v][i] columns (1-based, GLPK's), and the problem's size.
struct IlpLayout {
  std::vector<int> s_col;   // per node: the column of s[v][0]
  int cols = 0, rows = 0;
};

// Creates the columns and rows of the formulation in the header comment in `g`. Names (for a
// written LP file only) when `named`: building them for every solve was a tenth of the
// planner's time.
IlpLayout build_ilp(const IntraProblem& p, const FoldedCosts& f, bool named, GlpkProblem& g) {
  const int n = int(p.node_cost.size());
  IlpLayout out;
  glp_set_prob_name(g.lp, "autopar_intra_op");
  glp_set_obj_dir(g.lp, GLP_MIN);
  // Columns: s[v][i], then e[k][i][j].
  out.s_col.assign(size_t(n) + 1, 0);
  int& cols = out.cols;
  for (int v = 0; v < n; ++v) {
    out.s_col[size_t(v)] = cols + 1;
    cols += p.choices(v);
  }
  const auto& kept = f.kept;
  std::vector<int> e_col(kept.size());
  for (size_t k = 0; k < kept.size(); ++k) {
    e_col[k] = cols + 1;
    cols += p.choices(kept[k]->u) * p.choices(kept[k]->v);
  }
  glp_add_cols(g.lp, cols);
  for (int v = 0; v < n; ++v)
    for (int i = 0; i < p.choices(v); ++i) {
      int c = out.s_col[size_t(v)] + i;
      if (named) glp_set_col_name(g.lp, c, ("s_" + std::to_string(v) + "_" + std::to_string(i)).c_str());
      glp_set_col_kind(g.lp, c, GLP_BV);
      glp_set_obj_coef(g.lp, c, f.node_cost[size_t(v)][size_t(i)]);
    }
  for (size_t k = 0; k < kept.size(); ++k) {
    const auto& e = *kept[k];
    const int kv = p.choices(e.v);
    for (int i = 0; i < p.choices(e.u); ++i)
      for (int j = 0; j < kv; ++j) {
        int c = e_col[k] + i * kv + j;
        if (named) glp_set_col_name(g.lp, c, ("e_" + std::to_string(k) + "_" + std::to_string(i) + "_" + std::to_string(j)).c_str());
        glp_set_col_bnds(g.lp, c, GLP_DB, 0.0, 1.0);
        glp_set_obj_coef(g.lp, c, e.cost[size_t(i * kv + j)]);
      }
  }
  // Rows, with the matrix in GLPK's 1-based triplets.
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0};
  int& rows = out.rows;
  // `name` makes the row's name only when the LP is written.
  auto add_row = [&](auto name, int type, double lo, double hi) {
    glp_add_rows(g.lp, 1);
    ++rows;
    if (named) glp_set_row_name(g.lp, rows, name().c_str());
    glp_set_row_bnds(g.lp, rows, type, lo, hi);
    return rows;
  };
  auto put = [&](int row, int col, double v) {
    ia.push_back(row);
    ja.push_back(col);
    ar.push_back(v);
  };
  for (int v = 0; v < n; ++v) {  // (C1)
    int r = add_row([&] { return "one_" + std::to_string(v); }, GLP_FX, 1, 1);
    for (int i = 0; i < p.choices(v); ++i) put(r, out.s_col[size_t(v)] + i, 1);
  }
  for (size_t k = 0; k < kept.size(); ++k) {
    const auto& e = *kept[k];
    const int ku = p.choices(e.u), kv = p.choices(e.v);
    for (int i = 0; i < ku; ++i) {  // (C2)
      int r = add_row([&] { return "row_" + std::to_string(k) + "_" + std::to_string(i); }, GLP_FX, 0, 0);
      for (int j = 0; j < kv; ++j) put(r, e_col[k] + i * kv + j, 1);
      put(r, out.s_col[size_t(e.u)] + i, -1);
    }
    for (int j = 0; j < kv; ++j) {  // (C3)
      int r = add_row([&] { return "col_" + std::to_string(k) + "_" + std::to_string(j); }, GLP_FX, 0, 0);
      for (int i = 0; i < ku; ++i) put(r, e_col[k] + i * kv + j, 1);
      put(r, out.s_col[size_t(e.v)] + j, -1);
    }
  }
  if (p.memory_budget > 0) {  // (C4)
    int r = add_row([] { return std::string("memory"); }, GLP_UP, 0, p.memory_budget);
    for (int v = 0; v < n; ++v)
      for (int i = 0; i < p.choices(v); ++i) put(r, out.s_col[size_t(v)] + i, p.node_memory[size_t(v)][size_t(i)]);
  }
  if (rows > 0) glp_load_matrix(g.lp, int(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  return out;
}

// Runs GLPK's branch and cut within the time limit; every return code and status that gives
// no integer solution becomes an error naming what to change. The value: "optimal" or
// "time_limit" (a feasible plan found when time ran out).
Result<std::string> run_glpk(GlpkProblem& g, double time_limit_ms, double memory_budget) {
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;
  parm.tm_lim = int(std::min(time_limit_ms, 3.6e6));
  const int rc = glp_intopt(g.lp, &parm);
  const int status = glp_mip_status(g.lp);
  if (rc == GLP_ENOPFS || status == GLP_NOFEAS)
    return make_error(ErrorCode::infeasible, "no plan fits the memory budget of " + std::to_string(int64_t(memory_budget)) +
                                        " bytes per device; raise --memory-budget-bytes or use more devices", "--memory-budget-bytes");
  if (rc == GLP_ETMLIM && status != GLP_FEAS && status != GLP_OPT)
    return make_error(ErrorCode::time_limit, "the ILP found no plan within its time limit; use a smaller model or --solver dp on chains", "--solver");
  if (rc != 0 && rc != GLP_ETMLIM)
    return make_error(ErrorCode::solver_failed, "GLPK failed (glp_intopt code " + std::to_string(rc) + "); try --solver exhaustive on a small model", "--solver");
  if (status != GLP_OPT && status != GLP_FEAS)
    return make_error(ErrorCode::solver_failed, "GLPK returned no integer solution (status " + std::to_string(status) + ")", "--solver");
  return std::string(status == GLP_OPT && rc == 0 ? "optimal" : "time_limit");
}

// Per node, the strategy whose s column GLPK set (the largest value, against rounding).
std::vector<int> read_choices(const IntraProblem& p, const IlpLayout& layout, const GlpkProblem& g) {
  std::vector<int> choice(p.node_cost.size(), 0);
  for (int v = 0; v < int(choice.size()); ++v) {
    int best = 0;
    double best_val = -1;
    for (int i = 0; i < p.choices(v); ++i) {
      double x = glp_mip_col_val(g.lp, layout.s_col[size_t(v)] + i);
      if (x > best_val) { best_val = x; best = i; }
    }
    choice[size_t(v)] = best;
  }
  return choice;
}

}  // namespace

Result<IntraSolution> solve_ilp(const IntraProblem& p, double time_limit_ms, const std::string& lp_path) {
  if (auto st = check_problem(p); !st.ok()) return st.error();
  if (!(time_limit_ms > 0) || !std::isfinite(time_limit_ms)) time_limit_ms = 60000;
  glp_term_out(GLP_OFF);
  GlpkProblem g;
  const IlpLayout layout = build_ilp(p, fold_separable_edges(p), !lp_path.empty(), g);
  IntraSolution sol;
  sol.solver = "ilp";
  sol.variables = layout.cols;
  sol.constraints = layout.rows;
  if (!lp_path.empty() && glp_write_lp(g.lp, nullptr, lp_path.c_str()) != 0)
    return make_error(ErrorCode::io, "cannot write the ILP to '" + lp_path + "'; check the folder exists and is writable", "--write-lp");
  if (p.node_cost.empty()) return sol;
  auto status = run_glpk(g, time_limit_ms, p.memory_budget);
  if (!status.ok()) return status.error();
  sol.status = status.value();
  sol.choice = read_choices(p, layout, g);
  // GLPK's own objective value (separable edges folded into node costs add up to the same sum).
  sol.objective = glp_mip_obj_val(g.lp);
  return sol;
}

void free_ilp_thread_state() { glp_free_env(); }

}  // namespace autopar
