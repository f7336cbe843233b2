#include "microbench/transfer/transfer_analysis.h"

#include "microbench/harness/verdict.h"

#include "microbench/transfer/mechanism.h"
#include "microbench/harness/row_reader.h"
#include "microbench/harness/format.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace pk::transfer {

const std::vector<std::string>& transfer_knob_columns() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> k;
    for (const auto& knob : pk::transfer::all_knobs()) k.push_back(knob.name);
    return k;
  }();
  return v;
}

namespace {

int knob_index(const std::string& name) {
  const auto& k = transfer_knob_columns();
  auto it = std::find(k.begin(), k.end(), name);
  return it == k.end() ? -1 : static_cast<int>(it - k.begin());
}

// Registration order of the mechanisms: the "simplest first" order of the tuning table.
int mechanism_rank(const std::string& m) {
  static const std::vector<std::string> names = pk::transfer::mechanism_names();
  auto it = std::find(names.begin(), names.end(), m);
  return it == names.end() ? static_cast<int>(names.size()) : static_cast<int>(it - names.begin());
}

}  // namespace

int TransferRow::knob(const std::string& name) const {
  const int i = knob_index(name);
  return i < 0 || i >= static_cast<int>(knobs.size()) ? 0 : knobs[i];
}

std::string TransferRow::config() const {
  std::string c;
  const auto& names = transfer_knob_columns();
  for (size_t i = 0; i < knobs.size(); ++i)
    if (knobs[i]) c += (c.empty() ? "" : " ") + names[i] + "=" + std::to_string(knobs[i]);
  if (c.empty()) return pk::transfer::mechanism_uses_sms(mechanism) ? "defaults" : "copy engine";
  return c;
}

std::string TransferRow::config_key() const {
  std::string c;
  const auto& names = transfer_knob_columns();
  for (size_t i = 0; i < knobs.size(); ++i)
    if (knobs[i] && names[i] != "sms") c += (c.empty() ? "" : " ") + names[i] + "=" + std::to_string(knobs[i]);
  return c;
}

double TransferRow::gbps_low() const {
  if (time_us_max > 0 && time_us_median > 0) return gbps * time_us_median / time_us_max;
  if (cv > 0) return gbps * std::max(0.0, 1 - 2 * cv);
  return gbps;
}

double TransferRow::gbps_high() const {
  if (time_us_min > 0 && time_us_median > 0) return gbps * time_us_median / time_us_min;
  if (cv > 0) return gbps * (1 + 2 * cv);
  return gbps;
}

namespace {

// Sizes, rates, times and knob values are measured or chosen quantities: never negative (a
// negative rate would rank below nothing and leave no configuration in a bucket's band). The
// reader refuses those the names do not mark (csv_table.h): cv and the knobs.
const RowReader<TransferRow>& transfer_reader() {
  using R = TransferRow;
  using T = ColumnType;
  static const RowReader<R> reader = [] {
    RowReader<R> r;
    r.text("sweep", &R::sweep).text("mechanism", &R::mechanism).text("direction", &R::direction)
        .text("pattern", &R::pattern).text("status", &R::status).integer("message_bytes", &R::message_bytes)
        .number("gbps", &R::gbps).number("line_rate_gbps", &R::line_rate_gbps)
        .number("time_us_median", &R::time_us_median, false).number("time_us_min", &R::time_us_min, false)
        .number("time_us_max", &R::time_us_max, false).number("cv", &R::cv, false).never_negative()
        .integer("src_gpu", &R::src_gpu, false).integer("dst_gpu", &R::dst_gpu, false)
        .text("ref_tool", &R::ref_tool, false).number("ref_gbps", &R::ref_gbps, false)
        .number("ref_ratio", &R::ref_ratio, false).line(&R::line);
    // The knob columns, one per declared knob, into knobs[] by declaration order; sms also
    // into its own member.
    const auto& knobs = transfer_knob_columns();
    for (size_t k = 0; k < knobs.size(); ++k)
      r.column({knobs[k], T::integer, true, true}, [k, n = knobs.size(), sms = knobs[k] == "sms"](
                                                      R& row, const CsvTable& t, size_t i, int f) {
        row.knobs.resize(n);
        row.knobs[k] = static_cast<int>(t.integer(i, f, 0));
        if (sms) row.sms = row.knobs[k];
      });
    return r;
  }();
  return reader;
}

}  // namespace

// How pkbench_compare matches and measures this study's points (study_measure.h; registered
// by COMPARE on the study's line of sweeps/CMakeLists.txt).
StudyMeasure transfer_measure() {
  StudyMeasure m = with_timing_columns(
      {.key = {"sweep", "mechanism", "direction", "pattern", "src_gpu", "dst_gpu", "message_bytes"},
       .group = {"mechanism", "direction", "pattern"},
       .metric = "gbps",
       .unit = "GB/s"});
  for (const auto& k : transfer_knob_columns()) m.key.push_back(k);  // from the mechanisms' declarations
  return m;
}

TransferData read_transfer(const std::string& path, const StudySchemas* schemas) {
  static const StudySchemas own{
      declared_study("transfer", pk::transfer::transfer_columns(), "pk::transfer::transfer_columns() (pkbench_transfer_core)")};
  TransferData d;
  const CsvTable t = read_study_csv(path, "transfer", transfer_reader().fields(), &d, schemas ? schemas : &own);
  const auto row_of = transfer_reader().rows(t);
  const int f_status = t.field("status");
  d.rows.reserve(t.rows());
  for (size_t i = 0; i < t.rows(); ++i) {
    const std::string_view status = t.text(i, f_status);
    if (status == "ok") d.rows.push_back(row_of(i));
    else (status == "skipped" ? d.skipped : d.errors)++;
  }
  return d;
}

std::vector<TransferRow> read_transfer_csv(const std::string& path, const StudySchemas* schemas) {
  return read_transfer(path, schemas).rows;
}

std::vector<MechanismSummary> summarize_mechanisms(const std::vector<TransferRow>& rows) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const TransferRow*>> groups;
  std::vector<const TransferRow*>* last = nullptr;  // rows come in runs of one group: look up once a run
  const TransferRow* last_row = nullptr;
  for (const auto& r : rows) {
    if (!last || r.mechanism != last_row->mechanism || r.direction != last_row->direction ||
        r.pattern != last_row->pattern)
      last = &groups[{r.direction, r.pattern, r.mechanism}];
    last->push_back(&r);
    last_row = &r;
  }
  std::vector<MechanismSummary> out;
  for (const auto& [key, rs] : groups) {
    MechanismSummary s;
    std::tie(s.direction, s.pattern, s.mechanism) = key;
    const TransferRow* peak = *std::max_element(rs.begin(), rs.end(), [](auto a, auto b) { return a->gbps < b->gbps; });
    s.peak_gbps = peak->gbps;
    s.peak_config = peak->config();
    s.peak_message = peak->message_bytes;
    s.line_rate_gbps = peak->line_rate_gbps;
    std::map<uint64_t, double> best_at_msg;
    std::map<int, std::pair<double, uint64_t>> best_at_sms;
    for (const TransferRow* r : rs) {
      best_at_msg[r->message_bytes] = std::max(best_at_msg[r->message_bytes], r->gbps);
      if (r->device_initiated() && best_at_sms[r->sms].first < r->gbps) best_at_sms[r->sms] = {r->gbps, r->message_bytes};
    }
    for (const auto& [m, g] : best_at_msg)
      if (g >= 0.9 * s.peak_gbps) {
        s.min_message_90 = m;
        break;
      }
    if (s.line_rate_gbps > 0)
      for (const auto& [m, g] : best_at_msg)
        if (g >= 0.8 * s.line_rate_gbps) {
          s.min_message_80_line = m;
          break;
        }
    for (const auto& [sm, gm] : best_at_sms)
      if (gm.first >= 0.9 * s.peak_gbps) {
        s.min_sms_90 = sm;
        s.min_sms_90_message = gm.second;
        break;
      }
    out.push_back(s);
  }
  return out;
}

LocalCeiling local_ceiling(const std::vector<TransferRow>& rows) {
  LocalCeiling c;
  for (const auto& r : rows)
    if (r.pattern == "local" && r.gbps > c.gbps) {
      c.gbps = r.gbps;
      c.mechanism = r.mechanism;
      c.message = r.message_bytes;
    }
  std::map<std::string, LocalCeiling::Fewest> by_mech;
  for (const auto& r : rows) {
    if (r.pattern != "local" || !r.device_initiated()) continue;
    LocalCeiling::Fewest& f = by_mech[r.mechanism];
    f.mechanism = r.mechanism;
    f.best_gbps = std::max(f.best_gbps, r.gbps);
    if (r.gbps >= 0.9 * c.gbps && (f.sms == 0 || r.sms < f.sms || (r.sms == f.sms && r.gbps > f.gbps))) {
      f.sms = r.sms;
      f.message = r.message_bytes;
      f.gbps = r.gbps;
    }
  }
  for (auto& [m, f] : by_mech) c.fewest_sms_90.push_back(f);
  return c;
}

const MechanismSummary* find_summary(const std::vector<MechanismSummary>& s, const std::string& mech,
                                     const std::string& dir, const std::string& pat) {
  for (const auto& x : s)
    if (x.mechanism == mech && x.direction == dir && x.pattern == pat) return &x;
  return nullptr;
}

double best_at(const std::vector<TransferRow>& rows, const std::string& mech, const std::string& dir, uint64_t msg) {
  double g = 0;
  for (const auto& r : rows)
    if (r.mechanism == mech && r.direction == dir && r.pattern == "one_way" && r.message_bytes == msg)
      g = std::max(g, r.gbps);
  return g;
}

// ---------------------------------------------------------------- the tuning table

namespace {

// Simpler first: fewer SMs, then the mechanism registered earlier, then smaller knob values
// (declaration order), then the faster.
bool simpler(const TransferRow& a, const TransferRow& b) {
  if (a.sms != b.sms) return a.sms < b.sms;
  const int ra = mechanism_rank(a.mechanism), rb = mechanism_rank(b.mechanism);
  if (ra != rb) return ra < rb;
  if (a.knobs != b.knobs) return a.knobs < b.knobs;
  return a.gbps > b.gbps;
}

std::vector<TableColumn> transfer_tuning_columns() {
  using K = CellKind;
  std::vector<TableColumn> c = {
      {"machine", K::text, "machine key, e.g. h200x2 (GPU model x GPU count)"},
      {"gpu_name", K::text, "GPU name as the driver reports it"},
      {"gpu_count", K::integer, "GPUs on the machine"},
      {"direction", K::text, "push (write the peer), pull (read the peer), mixed (both ends at once)"},
      {"pattern", K::text, "one_way, bidir (both GPUs at once; bandwidth per direction), one_to_all, ..."},
      {"choice", K::text, "any: every mechanism (the copy engine counts as 0 SMs); device: only mechanisms on SMs"},
      {"from_bytes", K::integer, "message-size bucket start (a power of two)"},
      {"to_bytes", K::integer, "message-size bucket end (inclusive)"},
      {"sizes_measured", K::text, "message sizes measured in the bucket (;-separated)"},
      {"candidates", K::integer, "points measured in the bucket (configurations x message sizes)"},
      {"tied", K::integer, "configurations whose sample range overlaps the fastest's (within the noise)"},
      {"mechanism", K::text, "chosen mechanism: the fewest SMs among the tied, then the simplest"}};
  for (const auto& k : transfer_knob_columns())
    c.push_back({k, K::integer, "chosen configuration's " + k + " (0: the mechanism has no such knob)"});
  const std::vector<TableColumn> rest = {
      {"message_bytes", K::integer, "message size of the chosen row"},
      {"gbps", K::number, "chosen configuration, median GB/s per direction (GB = 1e9 B)"},
      {"gbps_low", K::number, "chosen configuration, slowest sample's GB/s"},
      {"gbps_high", K::number, "chosen configuration, fastest sample's GB/s"},
      {"pct_of_line_rate", K::number, "chosen median against the NVLink line rate (0: unknown)"},
      {"fastest_mechanism", K::text, "mechanism of the fastest median in the bucket"},
      {"fastest_config", K::text, "its configuration"},
      {"fastest_gbps", K::number, "fastest median GB/s in the bucket"},
      {"fastest_spread_pct", K::number, "the fastest's sample range (max - min) as % of its median"},
      {"chosen_vs_fastest_pct", K::number, "chosen median / fastest median - 1, in % (<= 0)"},
      {"runner_up_mechanism", K::text, "best configuration outside the noise band (\"\": none)"},
      {"runner_up_config", K::text, "its configuration"},
      {"runner_up_gap_pct", K::number, "1 - runner-up median / fastest median, in % (0: none)"},
      {"min_sms_90", K::integer, "fewest SMs of the chosen mechanism reaching 90 % of the fastest (0: copy engine or never)"},
      {"min_sms_90_gbps", K::number, "median GB/s at min_sms_90"},
      {"min_sms_90_config", K::text, "configuration at min_sms_90"},
      {"sms_swept", K::boolean, "whether several SM counts of the chosen mechanism were measured in the bucket"},
      {"source", K::text, "CSV file and line of the chosen row"}};
  c.insert(c.end(), rest.begin(), rest.end());
  return c;
}

}  // namespace

namespace {

// Row indices grouped by direction, pattern and bucket: one integer key per row (the names
// numbered in sorted order, then the bucket's power of two), so a million rows sort fast.
// Sorted (key, row) pairs; local rows left out.
std::vector<std::pair<uint64_t, uint32_t>> bucket_keys(const std::vector<TransferRow>& rows) {
  std::map<std::string, uint64_t> dir_id, pat_id;
  for (const auto& r : rows) {
    dir_id.emplace(r.direction, 0);
    pat_id.emplace(r.pattern, 0);
  }
  uint64_t n = 0;
  for (auto& [name, id] : dir_id) id = n++;
  n = 0;
  for (auto& [name, id] : pat_id) id = n++;
  std::vector<std::pair<uint64_t, uint32_t>> keyed;
  keyed.reserve(rows.size());
  const std::string* last_dir = nullptr;
  const std::string* last_pat = nullptr;
  uint64_t dk = 0, pk = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (r.pattern == "local") continue;
    if (!last_dir || r.direction != *last_dir) dk = dir_id.at(r.direction), last_dir = &r.direction;
    if (!last_pat || r.pattern != *last_pat) pk = pat_id.at(r.pattern), last_pat = &r.pattern;
    const uint64_t b = pow2_floor(r.message_bytes);
    const uint64_t log2b = b ? static_cast<uint64_t>(__builtin_ctzll(b)) : 0;
    keyed.push_back({(dk << 40) | (pk << 8) | log2b, static_cast<uint32_t>(i)});
  }
  std::sort(keyed.begin(), keyed.end());
  return keyed;
}

// One bucket's choice among its rows `rs`: the fastest, those tied with it, the simplest of
// those, the best outside the band, and the fewest SMs of the chosen mechanism reaching 90 %
// of the fastest.
struct BucketChoice {
  const TransferRow* fastest = nullptr;
  const TransferRow* chosen = nullptr;
  const TransferRow* runner = nullptr;
  const TransferRow* at90 = nullptr;
  size_t tied = 0;
  bool sms_swept = false;  // several SM counts of the chosen mechanism measured
  std::string sizes;       // the message sizes measured, ;-separated
};

BucketChoice choose(const std::vector<const TransferRow*>& rs) {
  BucketChoice c;
  c.fastest = *std::max_element(rs.begin(), rs.end(), [](auto a, auto b) { return a->gbps < b->gbps; });
  const double band_low = c.fastest->gbps_low();
  // The fastest is always in its own band, whatever its sample range says.
  std::vector<const TransferRow*> tied = {c.fastest};
  for (const TransferRow* r : rs) {
    if (r == c.fastest) continue;
    if (bands_overlap(r->gbps_low(), r->gbps_high(), band_low, c.fastest->gbps_high())) tied.push_back(r);
    else if (!c.runner || r->gbps > c.runner->gbps) c.runner = r;
  }
  c.tied = tied.size();
  c.chosen = *std::min_element(tied.begin(), tied.end(), [](auto a, auto b) { return simpler(*a, *b); });
  std::set<int> sms_seen;
  for (const TransferRow* r : rs) {
    if (r->mechanism != c.chosen->mechanism || !r->device_initiated()) continue;
    sms_seen.insert(r->sms);
    const TransferRow* b = c.at90;
    if (r->gbps >= 0.9 * c.fastest->gbps && (!b || r->sms < b->sms || (r->sms == b->sms && r->gbps > b->gbps))) c.at90 = r;
  }
  c.sms_swept = sms_seen.size() > 1;
  std::set<uint64_t> sz;
  for (const TransferRow* r : rs) sz.insert(r->message_bytes);
  for (uint64_t s : sz) c.sizes += (c.sizes.empty() ? "" : ";") + std::to_string(s);
  return c;
}

// The table row of a choice, in transfer_tuning_columns() order.
std::vector<Cell> choice_row(const TransferData& d, const std::string& choice, size_t candidates, const BucketChoice& c) {
  const TransferRow& f = *c.fastest;
  const TransferRow& ch = *c.chosen;
  const uint64_t lo = pow2_floor(f.message_bytes);
  std::vector<Cell> row = {d.machine.key(), d.machine.gpu_name, int64_t{d.machine.gpu_count}, f.direction, f.pattern,
                           choice, static_cast<int64_t>(lo), static_cast<int64_t>(2 * lo - 1), c.sizes,
                           static_cast<int64_t>(candidates), static_cast<int64_t>(c.tied), ch.mechanism};
  for (int k : ch.knobs) row.push_back(k ? Cell{int64_t{k}} : Cell{});
  const std::vector<Cell> chosen_and_fastest = {
      static_cast<int64_t>(ch.message_bytes),
      ch.gbps,
      ch.gbps_low(),
      ch.gbps_high(),
      ch.line_rate_gbps > 0 ? Cell{100 * ch.gbps / ch.line_rate_gbps} : Cell{},
      f.mechanism,
      f.config(),
      f.gbps,
      f.gbps > 0 ? Cell{100 * (f.gbps_high() - f.gbps_low()) / f.gbps} : Cell{},
      f.gbps > 0 ? Cell{100 * (ch.gbps / f.gbps - 1)} : Cell{}};
  row.insert(row.end(), chosen_and_fastest.begin(), chosen_and_fastest.end());
  if (c.runner) row.insert(row.end(), {c.runner->mechanism, c.runner->config(), 100 * (1 - c.runner->gbps / f.gbps)});
  else row.insert(row.end(), {Cell{}, Cell{}, Cell{}});
  if (c.at90) row.insert(row.end(), {int64_t{c.at90->sms}, c.at90->gbps, c.at90->config()});
  else row.insert(row.end(), {Cell{}, Cell{}, Cell{}});
  row.push_back(c.sms_swept);
  row.push_back(d.path + ":" + std::to_string(ch.line));
  return row;
}

}  // namespace

TuningTable transfer_tuning(const TransferData& d) {
  TuningTable t;
  t.name = "transfer";
  t.doc =
      "Transfer mechanism per machine, direction, pattern and power-of-two message-size bucket. Among the "
      "configurations whose min..max sample range overlaps the fastest one's, the fewest SMs wins, then the "
      "simplest (mechanism registration order, then smaller knob values).";
  t.columns = transfer_tuning_columns();
  t.keys = {"machine", "direction", "pattern", "choice"};
  t.from_column = "from_bytes";
  t.to_column = "to_bytes";
  t.sources = {d.path};
  const auto keyed = bucket_keys(d.rows);
  for (size_t g0 = 0; g0 < keyed.size();) {
    size_t g1 = g0;
    while (g1 < keyed.size() && keyed[g1].first == keyed[g0].first) ++g1;
    for (const char* choice : {"any", "device"}) {
      const bool device = std::string(choice) == "device";
      std::vector<const TransferRow*> rs;
      for (size_t j = g0; j < g1; ++j)
        if (!device || d.rows[keyed[j].second].device_initiated()) rs.push_back(&d.rows[keyed[j].second]);
      if (!rs.empty()) t.rows.push_back(choice_row(d, choice, rs.size(), choose(rs)));
    }
    g0 = g1;
  }
  return t;
}

// ---------------------------------------------------------------- summary

namespace {

// The rows nvbandwidth measured too (its testcases in the same run), each judged by the
// sweeps' one rule for a baseline against its own tool (verdict.h: within 5 %).
void reference_section(std::ostringstream& os, const std::vector<TransferRow>& rows) {
  int n = 0, checked = 0, off = 0;
  std::ostringstream t;
  for (const auto& r : rows) {
    if (r.ref_tool.empty()) continue;
    const CrossCheck c = cross_check(r.ref_tool, r.ref_gbps, r.ref_ratio);
    ++n;
    checked += c.status() == CheckStatus::checked;
    off += c.defective();
    t << "| " << r.mechanism << " | " << r.direction << " | " << r.pattern << " | " << r.src_gpu
      << (r.pattern == "local" ? "" : " > " + std::to_string(r.dst_gpu)) << " | " << num(r.gbps) << " | "
      << num(r.ref_gbps) << " | " << c.text() << " |\n";
  }
  if (n == 0) return;
  os << "\n## Against nvbandwidth\n\n" << n << " rows have a counterpart among nvbandwidth's testcases, run in the "
        "same call on the same bytes (column ref_tool): " << checked << " within 5 %, " << off
     << " off (a defect of the measurement, not a finding). GB/s per direction; the tool's fan-out and "
        "bidirectional totals are divided by the row's flows.\n\n"
     << "| mechanism | direction | pattern | GPUs (first flow) | GB/s | nvbandwidth GB/s | cross-check |\n"
     << "|---|---|---|---|---:|---:|---|\n"
     << t.str();
}

}  // namespace

const TargetSpecs& transfer_target_specs() {
  static const TargetSpecs v({
      {"transfer.device_vs_ce", "issue: foundation and transfer study",
       "best device-initiated peak / copy-engine best push peak, per direction", ">=", 0.97, ""},
      {"transfer.tma_2k", "issue: foundation and transfer study", "TMA at 2 KiB messages, % of its own peak", ">=", 90,
       " %"},
      {"transfer.tma_sms_90", "issue: foundation and transfer study", "SMs for TMA to reach 90 % of its peak", "<=", 16,
       " SMs"},
      {"transfer.wall_time", "issue: foundation and transfer study",
       "default transfer study wall time including the build", "<=", 240, " s"},
  });
  return v;
}

std::vector<TargetResult> transfer_targets(const TransferData& d, const std::vector<MechanismSummary>& s,
                                           double elapsed_s) {
  const TargetSpecs& spec = transfer_target_specs();
  std::vector<TargetResult> out;
  // Device-initiated = measured on SMs (derived from the rows, so a new mechanism needs no list).
  std::set<std::string> device;
  for (const auto& r : d.rows)
    if (r.device_initiated()) device.insert(r.mechanism);
  const MechanismSummary* ce_push = find_summary(s, "ce", "push");
  for (const std::string dir : {"push", "pull", "mixed"}) {
    const MechanismSummary* ce = find_summary(s, "ce", dir);
    const MechanismSummary* best_dev = nullptr;
    for (const auto& x : s)
      if (device.count(x.mechanism) && x.direction == dir && x.pattern == "one_way" &&
          (!best_dev || x.peak_gbps > best_dev->peak_gbps))
        best_dev = &x;
    if (ce_push && best_dev) {
      const double ratio = best_dev->peak_gbps / ce_push->peak_gbps;
      TargetResult t = judge_target(spec("transfer.device_vs_ce"),
                             dir + ": best device-initiated mechanism (" + best_dev->mechanism + ", " +
                                 num(best_dev->peak_gbps) + " GB/s) / copy engine best push (" + num(ce_push->peak_gbps) +
                                 " GB/s) = " + num(ratio, 3),
                             ratio, "copy engine, best push peak (ce)");
      if (ce && dir != "push")
        t.note = "; copy engine " + dir + " best " + num(ce->peak_gbps) + " GB/s (ratio " +
                 num(best_dev->peak_gbps / ce->peak_gbps, 3) + ")";
      out.push_back(t);
    }
  }
  for (const std::string m : {"tma_bulk", "tma_tile"})
    for (const std::string dir : {"push", "pull"}) {
      const MechanismSummary* x = find_summary(s, m, dir);
      if (!x) continue;
      const double at2k = best_at(d.rows, m, dir, 2048);
      if (at2k > 0)
        out.push_back(judge_target(spec("transfer.tma_2k"),
                            m + " " + dir + ": at 2 KiB messages " + num(at2k) + " GB/s = " +
                                num(100 * at2k / x->peak_gbps) + " % of its peak",
                            100 * at2k / x->peak_gbps));
      if (x->min_sms_90)
        out.push_back(judge_target(spec("transfer.tma_sms_90"),
                            m + " " + dir + ": 90 % of its peak with " + std::to_string(x->min_sms_90) + " SMs",
                            x->min_sms_90));
    }
  for (const std::string dir : {"push", "pull"})
    if (const MechanismSummary* ce = find_summary(s, "ce", dir))
      out.push_back(TargetResult{"",
                                 "copy engine " + dir + ": passes 80 % of line rate at " +
                                     (ce->min_message_80_line ? size_text(ce->min_message_80_line)
                                                              : std::string("no message size")) +
                                     " per call; reaches 90 % of its own peak at " + size_text(ce->min_message_90) +
                                     " per call",
                                 "", Verdict::info, ""});
  if (elapsed_s >= 0)
    out.push_back(judge_target(spec("transfer.wall_time"),
                        "study wall time including the build: " + num(elapsed_s, 0) + " s", elapsed_s));
  return out;
}

std::string summary_markdown(const TransferData& d, const std::vector<MechanismSummary>& s, double elapsed_s) {
  const auto& rows = d.rows;
  std::ostringstream os;
  os << "# Transfer mechanisms: summary\n\n";
  os << "Machine: " << d.machine.describe() << (d.git_commit.empty() ? "" : ", commit " + d.git_commit)
     << (d.peer_mode.empty() ? "" : ", peer mode " + d.peer_mode) << "\n\n";
  os << "Generated by `pkbench_transfer_summary` from the transfer CSV beside this file; every number below is "
        "a measured row of it (median of the samples). Bandwidth is per direction, GB = 1e9 B; \"% line\" is against "
        "the NVLink line rate read from NVML (column `line_rate_source` of the CSV). "
     << rows.size() << " measured rows, " << d.skipped << " skipped, " << d.errors << " errors.\n\n";
  os << "## Per mechanism (Table 1 of the paper)\n\n";
  os << "| direction | pattern | mechanism | peak GB/s | % line | config at peak (message) | smallest message "
        ">= 90 % of peak | fewest SMs >= 90 % of peak (message) | smallest message >= 80 % of line |\n";
  os << "|---|---|---|---:|---:|---|---|---|---|\n";
  for (const auto& x : s) {
    os << "| " << x.direction << " | " << x.pattern << " | " << x.mechanism << " | " << num(x.peak_gbps) << " | "
       << (x.line_rate_gbps > 0 ? num(x.pct_line()) : "-") << " | " << x.peak_config << " (" << size_text(x.peak_message)
       << ") | " << (x.min_message_90 ? size_text(x.min_message_90) : "-") << " | "
       << (x.min_sms_90 ? std::to_string(x.min_sms_90) + " (" + size_text(x.min_sms_90_message) + ")" : "-") << " | "
       << (x.min_message_80_line ? size_text(x.min_message_80_line) : "never") << " |\n";
  }
  if (const LocalCeiling c = local_ceiling(rows); c.gbps > 0) {
    os << "\nLocal-copy ceiling, a copy within one GPU's HBM (bytes copied per second; the memory moves twice "
          "that, read plus write): "
       << num(c.gbps) << " GB/s (" << c.mechanism << ", " << size_text(c.message) << "). Fewest SMs reaching 90 % of it:";
    for (const auto& f : c.fewest_sms_90)
      os << " " << f.mechanism << " "
         << (f.sms ? std::to_string(f.sms) + " SMs (" + num(f.gbps) + " GB/s, " + size_text(f.message) + ")"
                   : "never (best " + num(f.best_gbps) + " GB/s)")
         << ";";
    os << "\n";
  }
  reference_section(os, rows);
  os << "\n## Targets (issue: foundation and transfer study)\n\n";
  for (const auto& t : transfer_targets(d, s, elapsed_s)) os << "- " << t.sentence() << "\n";
  return os.str();
}

}  // namespace pk::transfer
