// The schedule model of core/alpa/pipeline_schedules.h: every schedule's order respects its
// dependencies on any stage times; on uniform stages with no sends the bubble equals the
// published closed forms (1F1B, interleaved, ZB-H1, DualPipe, DualPipeV) and the peak
// activations in flight the published memory columns; hand-worked timelines; bad inputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "error_code_printing.h"
#include "pipeline_schedules.h"
#include "rng.h"
#include "schedule_operation.h"

using namespace autopar;

namespace {

// Every dependency of the timeline, checked from the passes alone: one F and one B per (stage,
// micro-batch) (and one W exactly when B is split), F after the previous stage's F has arrived,
// B after its own F and the next stage's B, W after its B, one pass at a time per device and
// per send lane, every pass on the device its stage lives on.
void check_dependencies(const ScheduleInput& in, const ScheduleResult& r) {
  using Key = std::tuple<int, int, int>;   // (direction-qualified micro-batch, stage, kind)
  std::map<Key, const SchedulePass*> by;
  for (const SchedulePass& p : r.passes) {
    if (p.kind == PassKind::send) continue;
    const Key k{p.microbatch, p.stage, int(p.kind)};
    CHECK_MESSAGE(by.count(k) == 0, "a pass runs twice");
    by[k] = &p;
    CHECK(p.device == stage_device(in.kind, in.devices, in.interleave, p.stage, p.direction));
    CHECK(p.end_ms >= p.start_ms);
  }
  const int S = r.stages;
  const int M = in.microbatches;
  CHECK(by.size() > 0);
  // Send arrival per (micro-batch, from stage, gradient).
  std::map<std::tuple<int, int, bool>, double> arrive;
  for (const SchedulePass& p : r.passes)
    if (p.kind == PassKind::send) arrive[{p.microbatch, p.stage, p.gradient}] = p.end_ms;
  auto arrival = [&](const SchedulePass& from, bool gradient) {
    auto it = arrive.find({from.microbatch, from.stage, gradient});
    return it == arrive.end() ? from.end_ms : it->second;
  };
  for (int m = 0; m < M; ++m)
    for (int s = 0; s < S; ++s) {
      const auto f = by.find({m, s, int(PassKind::forward)});
      const auto b = by.find({m, s, int(PassKind::backward)});
      REQUIRE_MESSAGE(f != by.end(), "missing F of micro-batch ", m, " stage ", s);
      REQUIRE(b != by.end());
      const auto w = by.find({m, s, int(PassKind::weight)});
      CHECK((w != by.end()) == !b->second->whole_backward);
      if (w != by.end()) CHECK(w->second->start_ms >= b->second->end_ms - 1e-9);
      CHECK(b->second->start_ms >= f->second->end_ms - 1e-9);
      if (s > 0) {
        const SchedulePass& prev = *by.at({m, s - 1, int(PassKind::forward)});
        CHECK(f->second->start_ms >= arrival(prev, false) - 1e-9);
      }
      if (s + 1 < S) {
        const SchedulePass& next = *by.at({m, s + 1, int(PassKind::backward)});
        CHECK(b->second->start_ms >= arrival(next, true) - 1e-9);
      }
    }
  // One pass at a time on each device and each lane.
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> lanes;
  for (const SchedulePass& p : r.passes) lanes[{p.device, p.kind == PassKind::send ? 1 + p.to_device : 0}].push_back({p.start_ms, p.end_ms});
  for (auto& [lane, spans] : lanes) {
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) CHECK(spans[i].first >= spans[i - 1].second - 1e-9);
  }
}

std::vector<double> random_times(Rng& rng, size_t n, double lo, double hi) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(lo + (hi - lo) * double(rng.next() % 1000) / 1000.0);
  return v;
}

double max_of(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

}  // namespace

TEST_CASE("every schedule's order respects its dependencies, on uneven stages with sends") {
  Rng rng(42);
  for (ScheduleKind kind : all_schedule_kinds())
    for (int P : {2, 4, 6, 8})
      for (int M : {2 * P, 3 * P, 4 * P + 2})
        for (double send : {0.0, 0.3}) {
          ScheduleInput in;
          in.kind = kind;
          in.devices = P;
          in.microbatches = M;
          in.interleave = 2;
          in.send_ms = send;
          if (kind == ScheduleKind::interleaved && M % P != 0) continue;
          if (kind == ScheduleKind::dualpipe && M % 2 != 0) continue;
          const size_t S = size_t(stage_count(kind, P, 2));
          in.forward_ms = random_times(rng, S, 0.5, 1.5);
          in.backward_ms = random_times(rng, S, 1.0, 3.0);
          for (size_t s = 0; s < S; ++s) in.weight_ms.push_back(in.backward_ms[s] * double(rng.next() % 60) / 100.0);
          CAPTURE(schedule_name(kind));
          CAPTURE(P);
          CAPTURE(M);
          CAPTURE(send);
          auto r = simulate_schedule(in);
          if (!r.ok()) FAIL(r.error().message);
          check_dependencies(in, r.value());
          // Busy time is the work the stages hold: the sum of F + B over stages x micro-batches.
          double work = 0, busy = 0;
          for (size_t s = 0; s < S; ++s) work += (in.forward_ms[s] + in.backward_ms[s]) * M;
          for (double b : r.value().busy_ms) busy += b;
          CHECK(busy == doctest::Approx(work));
          CHECK(r.value().makespan_ms >= max_of(r.value().busy_ms) - 1e-9);
        }
}

TEST_CASE("uniform stages, no sends: the bubble is the published closed form, exactly") {
  // The closed forms (DeepSeek-V3 Table 2; Narayanan et al. SC'21 for interleaving) assume the
  // backward's input half takes as long as F and W no longer than F: b = f + w, w <= f.
  const std::pair<double, double> fw[] = {{1, 1}, {1, 0.5}, {2, 1.4}, {1, 0}, {3, 0.25}};
  for (const auto& times : fw) {
    const double f = times.first, w = times.second, b = f + w;   // plain names: CAPTURE's lambda cannot take bindings (C++17)
    for (int P : {2, 4, 8, 16})
      for (int M : {2 * P, 4 * P, 8 * P}) {
        for (ScheduleKind kind : all_schedule_kinds()) {
          if (kind == ScheduleKind::zb_v) continue;   // no closed form
          CAPTURE(schedule_name(kind));
          CAPTURE(P);
          CAPTURE(M);
          CAPTURE(f);
          CAPTURE(w);
          const int v = kind == ScheduleKind::interleaved ? (P >= 4 ? 4 : 2) : 1;
          auto r = simulate_schedule(uniform_schedule_input(kind, P, M, v, f, b, w));
          REQUIRE(r.ok());
          const double expected = published_bubble(kind, P, v, f, b, w);
          // ZB-H2's closed form is Qi et al.'s bubble: the longest device span (first pass to
          // last; iterations overlap) less the work of a device, m (F + B).
          const std::vector<double> bubbles = kind == ScheduleKind::zb_h2
                                                  ? std::vector<double>{schedule_longest_span(r.value()) - M * (f + b)}
                                                  : r.value().bubble_ms;
          for (double bubble : bubbles) CHECK(bubble == doctest::Approx(expected).epsilon(1e-12));
          CHECK(max_of(r.value().peak_inflight) == doctest::Approx(published_peak_inflight(kind, P, v, M)));
        }
      }
  }
}

TEST_CASE("1F1B holds p - d micro-batches on device d; ZB-H1 holds p on every device, 1F1B's peak") {
  auto one = simulate_schedule(uniform_schedule_input(ScheduleKind::one_f_one_b, 4, 12, 1, 1, 2, 1)).value();
  auto zb = simulate_schedule(uniform_schedule_input(ScheduleKind::zb_h1, 4, 12, 1, 1, 2, 1)).value();
  for (int d = 0; d < 4; ++d) {
    CHECK(one.peak_inflight[size_t(d)] == 4 - d);
    CHECK(zb.peak_inflight[size_t(d)] == 4);
  }
  // GPipe keeps every micro-batch.
  auto gpipe = simulate_schedule(uniform_schedule_input(ScheduleKind::gpipe, 4, 12, 1, 1, 2, 1)).value();
  CHECK(max_of(gpipe.peak_inflight) == 12);
  // The curve ends at zero and never exceeds its peak.
  for (const auto& curve : zb.inflight) {
    REQUIRE(!curve.empty());
    CHECK(curve.back().inflight == 0);
  }
}

TEST_CASE("zero bubble beats 1F1B whenever W > 0, at 1F1B's memory; ZB-V beats ZB-H1 when W >= B/4") {
  for (int P : {2, 4, 8})
    for (double w : {0.25, 0.5, 1.0})
      for (int M : {2 * P, 4 * P}) {
        CAPTURE(P);
        CAPTURE(w);
        CAPTURE(M);
        const double f = 1, b = 2;
        auto one = simulate_schedule(uniform_schedule_input(ScheduleKind::one_f_one_b, P, M, 1, f, b, w)).value();
        auto h1 = simulate_schedule(uniform_schedule_input(ScheduleKind::zb_h1, P, M, 1, f, b, w)).value();
        auto v = simulate_schedule(uniform_schedule_input(ScheduleKind::zb_v, P, M, 1, f, b, w)).value();
        CHECK(h1.makespan_ms < one.makespan_ms);
        if (w >= b / 4) CHECK(v.makespan_ms <= h1.makespan_ms + 1e-9);
        CHECK(max_of(h1.peak_inflight) <= max_of(one.peak_inflight));
        CHECK(max_of(v.peak_inflight) <= max_of(one.peak_inflight));
      }
  // With W = 0 there is nothing to defer: ZB-H1 is 1F1B.
  auto one = simulate_schedule(uniform_schedule_input(ScheduleKind::one_f_one_b, 4, 8, 1, 1, 2, 0)).value();
  auto h1 = simulate_schedule(uniform_schedule_input(ScheduleKind::zb_h1, 4, 8, 1, 1, 2, 0)).value();
  CHECK(h1.makespan_ms == one.makespan_ms);
}

TEST_CASE("1F1B on 2 devices, 2 micro-batches, by hand, with and without sends") {
  // f = 1, b = 2. Device 1 (last): F0 [1,2] B0 [2,4] F1 [4,5] B1 [5,7]; device 0 (one warm-up
  // forward): F0 [0,1] F1 [1,2] B0 [4,6] B1 [7,9]. Makespan 9 = (m + p - 1)(f + b); each device
  // busy 6, idle 3 = (p - 1)(f + b).
  auto r = simulate_schedule(uniform_schedule_input(ScheduleKind::one_f_one_b, 2, 2, 1, 1, 2, 0)).value();
  CHECK(r.makespan_ms == 9);
  auto at = [&](const ScheduleResult& s, int d, size_t i) { return std::make_pair(s.passes[size_t(s.order[size_t(d)][i])].start_ms, s.passes[size_t(s.order[size_t(d)][i])].end_ms); };
  CHECK(at(r, 0, 2) == std::make_pair(4.0, 6.0));
  CHECK(at(r, 0, 3) == std::make_pair(7.0, 9.0));
  CHECK(at(r, 1, 2) == std::make_pair(4.0, 5.0));
  CHECK(r.bubble_ms == std::vector<double>{3, 3});
  // Sends of 0.5: device 1's F0 [1.5,2.5] B0 [2.5,4.5] (gradient back [4.5,5]), F1 waits for B0
  // to end: [4.5,5.5], B1 [5.5,7.5] (back [7.5,8]); device 0's B0 [5,7], B1 [8,10].
  auto s = simulate_schedule(uniform_schedule_input(ScheduleKind::one_f_one_b, 2, 2, 1, 1, 2, 0, 0.5)).value();
  CHECK(s.makespan_ms == 10);
  CHECK(at(s, 1, 0) == std::make_pair(1.5, 2.5));
  CHECK(at(s, 1, 2) == std::make_pair(4.5, 5.5));
  CHECK(at(s, 0, 2) == std::make_pair(5.0, 7.0));
  CHECK(at(s, 0, 3) == std::make_pair(8.0, 10.0));
  CHECK(s.sends == 4);
}

TEST_CASE("ZB-H1 on 2 devices by hand: device 1 defers one W into the drain") {
  // f = 1, b = 2 (input half 1), w = 1. Device 1: F0 [1,2] B0 [2,3] F1 [3,4] B1 [4,5] W0 [5,6] W1 [6,7]
  // (it defers its first W, then runs W after each B); device 0: F0 [0,1] F1 [1,2] B0 [3,4] W0 [4,5]
  // B1 [5,6] W1 [6,7]. Makespan 7 = m(f + b) + (p - 1)(f + b - 2w) = 6 + 1.
  auto r = simulate_schedule(uniform_schedule_input(ScheduleKind::zb_h1, 2, 2, 1, 1, 2, 1)).value();
  CHECK(r.makespan_ms == 7);
  std::string order;
  for (int i : r.order[1]) order += std::string(pass_kind_letter(r.passes[size_t(i)].kind)) + std::to_string(r.passes[size_t(i)].microbatch) + " ";
  CHECK(order == "F0 B0 F1 B1 W0 W1 ");
}

TEST_CASE("bad schedule inputs are errors naming the field") {
  auto in = uniform_schedule_input(ScheduleKind::dualpipe, 3, 12, 1, 1, 2, 1);
  auto r = simulate_schedule(in);
  REQUIRE(!r.ok());
  CHECK(r.error().path == "devices");
  in = uniform_schedule_input(ScheduleKind::dualpipe, 4, 6, 1, 1, 2, 1);
  CHECK(simulate_schedule(in).error().path == "microbatches");
  in = uniform_schedule_input(ScheduleKind::interleaved, 4, 10, 2, 1, 2, 1);
  CHECK(simulate_schedule(in).error().path == "microbatches");
  in = uniform_schedule_input(ScheduleKind::one_f_one_b, 4, 8, 1, 1, 2, 1);
  in.weight_ms[2] = 3;
  CHECK(simulate_schedule(in).error().path == "weight_ms[2]");
  in.weight_ms.pop_back();
  CHECK(simulate_schedule(in).error().path == "weight_ms");
  in = uniform_schedule_input(ScheduleKind::one_f_one_b, 0, 8, 1, 1, 2, 1);
  CHECK(simulate_schedule(in).error().code == ErrorCode::out_of_range);
  CHECK(parse_schedule_kind("ZB-H1").value() == ScheduleKind::zb_h1);
  CHECK(parse_schedule_kind("zb-h3").error().message.find("dualpipev") != std::string::npos);
  for (ScheduleKind k : all_schedule_kinds()) CHECK(parse_schedule_kind(schedule_name(k)).value() == k);
}

TEST_CASE("the schedule report: JSON fields, the text Gantt and the trace") {
  ScheduleRequest req;
  req.kinds = {ScheduleKind::zb_h1};
  req.devices = 4;
  req.microbatches = 8;
  auto rep = run_schedule_request(req);
  REQUIRE(rep.ok());
  const Json j = rep.value().to_json();
  CHECK(j["makespan"].get<double>() == 27);   // 8 x 3 + 3 x (1 + 2 - 2)
  CHECK(j["bubble"].size() == 4);
  CHECK(j["bubble"][0].get<double>() == 3);
  CHECK(j["published_bubble"].get<double>() == 3);
  CHECK(j["peak_inflight"][3].get<double>() == 4);
  CHECK(j["passes"].size() == 4 * 8 * 3);
  const std::string text = rep.value().to_text();
  CHECK(text.find("dev 0  |F0F1F2F3") != std::string::npos);
  const Json trace = schedule_trace(rep.value().runs[0].result);
  CHECK(trace["traceEvents"].size() == 4 * 2 + 4 * 8 * 3);
  // Every schedule at once.
  req.kinds = all_schedule_kinds();
  auto all = run_schedule_request(req);
  REQUIRE(all.ok());
  CHECK(all.value().to_json()["schedules"].size() == all_schedule_kinds().size());
  req.w = 3;
  CHECK(run_schedule_request(req).error().path == "--w");
}

TEST_CASE("a plan under a schedule: chunks keep their device's time, sends take the plan's boundaries") {
  PlanPipeline pp;
  pp.stage_ms = {3, 6, 3, 3};
  pp.boundary_ms = {1, 1, 2, 0};
  pp.microbatches = 8;
  pp.weight_share = 0.5;
  auto in = plan_schedule_input(pp, ScheduleKind::zb_v, 1);
  REQUIRE(in.ok());
  // 8 chunks: device 1 holds chunks 1 and 6, each half of its 6 ms: F 1, B 2, W 1.
  CHECK(in.value().forward_ms[1] == 1);
  CHECK(in.value().forward_ms[6] == 1);
  CHECK(in.value().backward_ms[6] == 2);
  CHECK(in.value().weight_ms[6] == 1);
  CHECK(in.value().boundary_send_ms[1] == 0.5);
  // Device 3's own boundary is none, but interleaving wraps back to device 0 over the slowest one.
  auto inter = plan_schedule_input(pp, ScheduleKind::interleaved, 2);
  REQUIRE(inter.ok());
  CHECK(inter.value().boundary_send_ms[3] == 1);
  // The 1F1B simulation of uniform stages with no boundaries is the DP's closed form:
  // sum(t) + (B - 1) max(t).
  PlanPipeline even;
  even.stage_ms = {2, 2, 2};
  even.boundary_ms = {0, 0, 0};
  even.microbatches = 5;
  auto one = simulate_schedule(plan_schedule_input(even, ScheduleKind::one_f_one_b, 1).value());
  REQUIRE(one.ok());
  CHECK(one.value().makespan_ms == doctest::Approx(6 + 4 * 2));
  pp.weight_share = 1.5;
  CHECK(plan_schedule_input(pp, ScheduleKind::one_f_one_b, 1).error().path == "weight_share");
}
