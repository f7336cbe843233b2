#include "microbench/fused/fused_tuned.h"

#include "microbench/harness/cuda_check.h"

namespace pk::fused {

void check_tuning_table(const std::string& path) {
  try {
    const pkbench::tuning::Table t = pkbench::tuning::Tuner::read_json_file(path);
    pkbench::tuning::Tuner::check_schema(t);
    if (t.name != "fused") throw ArgError("a " + t.name + " table, not the fused one (fused_tuning.json)");
  } catch (const std::exception& e) {
    throw ArgError("--tuning-table=" + path + ": " + e.what());
  }
}

std::string tuning_machine(const std::string& gpu_name, int gpu_count, bool virtual_ranks, int ranks) {
  const std::string m = pkbench::tuning::machine_key(gpu_name, gpu_count);
  return virtual_ranks ? pkbench::tuning::virtual_machine_key(m, ranks) : m;
}

pkbench::tuning::Tuner load_tuning_table(const std::string& path, const std::string& machine) {
  pkbench::tuning::Tuner t(machine);
  try {
    t.load_json_file(path);
  } catch (const std::exception& e) {
    throw ArgError("--tuning-table=" + path + ": " + e.what());
  }
  return t;
}

Point tuned_point(const pkbench::tuning::Tuner& tuner, const std::string& table, Op op, const Shape& s, int size_n,
                  int world) {
  Point p{op, kTunedSchedule, s, size_n, {}, {}};
  Tuning& t = p.tuning.emplace();
  const std::string where = "tuning table " + table + " (" + tuner.rows_machine() + ")";
  const pkbench::tuning::SplitChoice c = tuner.choose_split(op_name(op), s.m, s.n, s.k, world);
  if (!c.ok()) {
    t.refused = where + ": " + c.why;
    return p;
  }
  std::string from;
  for (const auto& f : c.from) from += (from.empty() ? "" : ";") + f;
  t.answer = "overlap=" + c.overlap + " impl=" + c.impl + " comm_sms=" + std::to_string(c.comm_sms) +
             " basis=" + to_string(c.basis) + " from=" + from + " table=" + table + " machine=" + tuner.rows_machine();
  auto refuse = [&](const std::string& why) {
    t.refused = where + " answers " + c.impl + ": " + why;
    p.knobs.clear();
    return p;
  };
  const Schedule* sch = find_schedule(c.impl);
  if (!sch || sch->kind != Kind::fused || !sch->supports(op))
    return refuse("no fused schedule of " + op_name(op) + " in this build is named so");
  if (overlap_of(*sch) != c.overlap) return refuse("with overlap " + c.overlap + ", but its overlap is " + overlap_of(*sch));
  if (c.comm_sms != 0 && !sch->has_knob(knobs::comm_sms.name))
    return refuse("with comm_sms=" + std::to_string(c.comm_sms) + ", a knob it does not take");
  // The default: the answered schedule at the values a program without the table launches.
  std::string dflt = sch->name;
  for (const KnobUse& u : sch->knobs) {
    if (u.knob != &knobs::comm_sms) return refuse("its knob " + u.knob->name + " is not a tuning-table answer");
    if (c.comm_sms < u.knob->lo || c.comm_sms > u.knob->hi)
      return refuse("with comm_sms=" + std::to_string(c.comm_sms) + ", outside " + std::to_string(u.knob->lo) + ".." +
                    std::to_string(u.knob->hi));
    p.knobs[u.knob->name] = c.comm_sms;
    if (u.untuned) dflt += "/" + u.knob->name + ":" + std::to_string(u.untuned);
  }
  t.answer += " default=" + dflt;
  t.schedule = sch->name;
  return p;
}

std::vector<Point> with_tuned_points(const std::vector<Point>& points, const pkbench::tuning::Tuner& tuner,
                                     const std::string& table, int world) {
  std::vector<Point> out;
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    out.push_back(p);
    const bool last = i + 1 == points.size() || points[i + 1].op != p.op || !(points[i + 1].shape == p.shape);
    if (last) out.push_back(tuned_point(tuner, table, p.op, p.shape, p.size_n, world));
  }
  return out;
}

Point point_run(const Point& p) {
  if (!p.tuning || p.tuning->schedule.empty()) return p;
  Point r = p;
  r.schedule = p.tuning->schedule;
  r.tuning.reset();
  return r;
}

}  // namespace pk::fused
