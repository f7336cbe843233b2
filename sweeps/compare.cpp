#include "sweeps/compare.h"

#include "microbench/harness/verdict.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/format.h"
#include "sweeps/study_schema.h"

#define PK_SWEEPS_DECLARATIONS
#include "study_registry.inc"
#undef PK_SWEEPS_DECLARATIONS

namespace fs = std::filesystem;

namespace pk::sweeps {

// Declarations of the studies' measure functions, then PK_SWEEPS_MEASURE(study, function)
// for each registered one (sweeps/CMakeLists.txt, COMPARE on a pk_sweeps_study line).
const std::vector<StudyMeasure>& study_measures() {
  static const std::vector<StudyMeasure> v = [] {
    std::vector<StudyMeasure> m;
    auto add = [&](const char* study, StudyMeasure measure) {
      measure.study = study;
      m.push_back(std::move(measure));
    };
#define PK_SWEEPS_STUDY(name, fn, lib)
#define PK_SWEEPS_STUDY_ABSENT(name, fn, why)
#define PK_SWEEPS_MEASURE(name, fn) add(name, fn());
#include "study_registry.inc"
#undef PK_SWEEPS_STUDY
#undef PK_SWEEPS_STUDY_ABSENT
#undef PK_SWEEPS_MEASURE
    (void)add;
    return m;
  }();
  return v;
}

const StudyMeasure* find_measure(const std::string& study) {
  for (const auto& m : study_measures())
    if (m.study == study) return &m;
  return nullptr;
}

int FileDiff::better() const {
  int n = 0;
  for (const auto& p : points) n += p.change > 0;
  return n;
}
int FileDiff::worse() const {
  int n = 0;
  for (const auto& p : points) n += p.change < 0;
  return n;
}
int FolderDiff::changes() const {
  int n = 0;
  for (const auto& f : files) n += f.better() + f.worse();
  return n;
}

namespace {

struct Side {
  std::string desc;
  // point -> (group, value, lo, hi, has range)
  struct P {
    std::string label, group;
    double v, lo, hi;
    bool range;
  };
  std::vector<std::string> order;
  std::unordered_map<std::string, P> points;
};

std::string study_of(const std::string& path) { return peek_csv(path).study; }

Side load(const std::string& path, const StudyMeasure& m) {
  using T = ColumnType;
  std::vector<Field> f;
  for (const auto& k : m.key) f.push_back({k, T::text, k != "sweep"});
  for (const auto& g : m.group)
    if (std::find(m.key.begin(), m.key.end(), g) == m.key.end()) f.push_back({g, T::text, true});
  f.push_back({m.metric, T::number, true});
  f.push_back({"status", T::text, true});
  for (const std::string* c : {&m.t_median, &m.t_min, &m.t_max, &m.cv, &m.lo, &m.hi, &m.range_ref, &m.range_ref_alt})
    if (!c->empty() && *c != m.metric &&
        std::none_of(f.begin(), f.end(), [&](const Field& x) { return x.name == *c; }))
      f.push_back({*c, T::number, false});
  for (const char* meta : {"git_commit", "peer_mode"}) f.push_back({meta, T::text, false});
  const CsvTable t = CsvTable::read(path, f, checked_as(m.study));
  Side s;
  s.desc = t.machine().describe();
  if (t.rows()) {
    if (!t.empty(0, "git_commit")) s.desc += ", commit " + std::string(t.text(0, "git_commit"));
    if (!t.empty(0, "peer_mode")) s.desc += ", peer mode " + std::string(t.text(0, "peer_mode"));
  }
  s.desc += ", " + std::to_string(t.rows()) + " rows";
  std::vector<int> kf, gf;
  for (const auto& k : m.key) kf.push_back(t.field(k));
  for (const auto& g : m.group) gf.push_back(t.field(g));
  const int mf = t.field(m.metric), sf = t.field("status");
  auto num = [&](size_t i, const std::string& c) { return c.empty() ? 0.0 : t.number(i, c); };
  // Key columns holding one value in the whole file (src_gpu=0 ...) are matched but left
  // out of the label.
  std::vector<bool> in_label;
  for (int k : kf) in_label.push_back(t.distinct(k) > 2);
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, sf) != "ok" || t.empty(i, mf)) continue;
    std::string key, label, group;
    for (size_t k = 0; k < kf.size(); ++k) {
      const std::string_view v = t.text(i, kf[k]);
      if (v.empty()) continue;
      const std::string kv = m.key[k] + "=" + std::string(v);
      key += (key.empty() ? "" : " ") + kv;
      if (in_label[k]) label += (label.empty() ? "" : " ") + kv;
    }
    for (size_t g = 0; g < gf.size(); ++g) group += (g ? "/" : "") + std::string(t.text(i, gf[g]));
    Side::P p{label.empty() ? key : label, group, t.number(i, mf), 0, 0, false};
    const double med = num(i, m.t_median), tmin = num(i, m.t_min), tmax = num(i, m.t_max), cv = num(i, m.cv);
    if (med > 0 && tmin > 0 && tmax > 0) {
      const double a = med / tmax, b = med / tmin;  // metric ~ 1/time
      p.lo = m.higher_better ? p.v * a : p.v / b;
      p.hi = m.higher_better ? p.v * b : p.v / a;
      p.range = true;
    } else if (!m.lo.empty() && num(i, m.lo) > 0 && num(i, m.hi) > 0) {
      double ref = num(i, m.range_ref);
      if (ref <= 0) ref = num(i, m.range_ref_alt);
      if (ref > 0) {
        p.lo = p.v * num(i, m.lo) / ref;
        p.hi = p.v * num(i, m.hi) / ref;
        p.range = true;
      }
    } else if (cv > 0) {
      p.lo = p.v * (1 - 2 * cv);
      p.hi = p.v * (1 + 2 * cv);
      p.range = true;
    }
    if (!p.range) p.lo = p.hi = p.v;
    if (s.points.emplace(key, p).second) s.order.push_back(key);
  }
  return s;
}

}  // namespace

FileDiff compare_files(const std::string& a_csv, const std::string& b_csv) {
  FileDiff d;
  d.file = fs::path(a_csv).filename().string();
  d.study = study_of(a_csv);
  const std::string sb = study_of(b_csv);
  if (d.study != sb)
    throw std::runtime_error(a_csv + " is a " + (d.study.empty() ? "non-study" : d.study) + " CSV but " + b_csv +
                             " is a " + (sb.empty() ? "non-study" : sb) + " CSV");
  const StudyMeasure* m = find_measure(d.study);
  if (!m)
    throw std::runtime_error(a_csv + ": no comparison is declared for the " + d.study +
                             " study (sweeps/CMakeLists.txt: COMPARE on its pk_sweeps_study line)");
  d.metric = m->metric;
  d.unit = m->unit;
  d.higher_better = m->higher_better;
  const Side a = load(a_csv, *m), b = load(b_csv, *m);
  d.a_desc = a.desc;
  d.b_desc = b.desc;
  for (const auto& k : a.order) {
    const auto& pa = a.points.at(k);
    auto it = b.points.find(k);
    if (it == b.points.end()) {
      d.only_a.push_back(k);
      continue;
    }
    const auto& pb = it->second;
    PointDiff p{pa.label, pa.group, pa.v, pb.v, pa.lo, pa.hi, pb.lo, pb.hi, pa.range && pb.range, 0};
    if (p.has_range) {
      // A change only beyond the noise (the suite's one rule, verdict.h): the ranges do not overlap.
      const int dir = bands_overlap(pa.lo, pa.hi, pb.lo, pb.hi) ? 0 : pb.lo > pa.hi ? +1 : -1;
      p.change = m->higher_better ? dir : -dir;
    } else {
      ++d.no_range;
    }
    d.points.push_back(p);
  }
  for (const auto& k : b.order)
    if (!a.points.count(k)) d.only_b.push_back(k);
  return d;
}

FolderDiff compare_folders(const std::string& a, const std::string& b) {
  for (const auto* p : {&a, &b})
    if (!fs::is_directory(*p)) throw std::invalid_argument("no such folder: " + *p);
  FolderDiff d;
  d.a = a;
  d.b = b;
  // Every CSV under each folder, by its path relative to the folder, so that two machine folders
  // of the results layout (<study>/<study>.csv, <study>/virtual/...) compare study by study.
  auto csvs = [](const std::string& root) {
    std::set<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.is_regular_file() && e.path().extension() == ".csv")
        names.insert(e.path().lexically_relative(root).generic_string());  // not relative(): it follows symlinks
    return names;
  };
  const std::set<std::string> na = csvs(a), nb = csvs(b);
  for (const auto& n : na) {
    if (!nb.count(n)) {
      d.notes.push_back(n + ": only in A");
      continue;
    }
    const std::string study = study_of(a + "/" + n);
    if (study.empty()) {
      d.notes.push_back(n + ": not a study CSV (no `study` column), not compared");
      continue;
    }
    if (!find_measure(study)) {
      d.notes.push_back(n + ": no comparison declared for the " + study + " study, not compared");
      continue;
    }
    d.files.push_back(compare_files(a + "/" + n, b + "/" + n));
  }
  for (const auto& n : nb)
    if (!na.count(n)) d.notes.push_back(n + ": only in B");
  return d;
}

namespace {

std::string value(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  return num(v, a >= 100 ? 1 : a >= 1 ? 2 : 4);
}

}  // namespace

std::string compare_markdown(const FolderDiff& d, size_t top, bool all) {
  std::ostringstream os;
  os << "# pkbench_compare\n\n- A: `" << d.a << "`\n- B: `" << d.b << "`\n\n"
     << "Ratios are B / A of each point's median. A point counts as changed only when the two sample ranges do "
        "not overlap (min..max of the samples; p10..p90 where the study records those; median +- 2 cv where it "
        "records neither); everything else is within the measured noise.\n";
  for (const auto& n : d.notes) os << "\n- " << n;
  if (!d.notes.empty()) os << "\n";
  for (const auto& f : d.files) {
    os << "\n## " << f.file << " (study " << f.study << ", " << f.metric << " in " << f.unit << ", "
       << (f.higher_better ? "higher" : "lower") << " is better)\n\n";
    os << "- A: " << f.a_desc << "\n- B: " << f.b_desc << "\n";
    double lsum = 0;
    for (const auto& p : f.points) lsum += std::log(p.ratio());
    os << "- " << f.points.size() << " points in both; beyond the noise: " << f.better() << " better, " << f.worse()
       << " worse; " << f.only_a.size() << " only in A, " << f.only_b.size() << " only in B";
    if (f.no_range) os << "; " << f.no_range << " without a recorded range (never flagged)";
    if (!f.points.empty()) os << "; geometric mean B/A " << num(std::exp(lsum / f.points.size()), 4);
    os << "\n\n";
    // Per group.
    std::map<std::string, std::vector<const PointDiff*>> groups;
    for (const auto& p : f.points) groups[p.group].push_back(&p);
    os << "| group | points | geomean B/A | min B/A | max B/A | better | worse |\n|---|---:|---:|---:|---:|---:|---:|\n";
    for (const auto& [g, ps] : groups) {
      double s = 0, lo = 1e300, hi = 0;
      int better = 0, worse = 0;
      for (const auto* p : ps) {
        s += std::log(p->ratio());
        lo = std::min(lo, p->ratio());
        hi = std::max(hi, p->ratio());
        better += p->change > 0;
        worse += p->change < 0;
      }
      os << "| " << g << " | " << ps.size() << " | " << num(std::exp(s / ps.size()), 4) << " | " << num(lo, 3)
         << " | " << num(hi, 3) << " | " << better << " | " << (worse ? "**" + std::to_string(worse) + "**" : "0")
         << " |\n";
    }
    std::vector<const PointDiff*> list;
    for (const auto& p : f.points)
      if (all || p.change != 0) list.push_back(&p);
    std::stable_sort(list.begin(), list.end(), [](auto x, auto y) {
      return std::fabs(std::log(x->ratio())) > std::fabs(std::log(y->ratio()));
    });
    if (!list.empty()) {
      os << "\n" << (all ? "Every point" : "Changes beyond the noise") << ", largest first"
         << (list.size() > top && !all ? " (" + std::to_string(top) + " of " + std::to_string(list.size()) + ")" : "")
         << ":\n\n| point | A | B | B/A | A range | B range | change |\n|---|---:|---:|---:|---|---|---|\n";
      size_t n = 0;
      for (const auto* p : list) {
        if (!all && n++ >= top) break;
        os << "| " << p->point << " | " << value(p->a) << " | " << value(p->b) << " | " << num(p->ratio(), 3) << " | "
           << value(p->a_lo) << "..." << value(p->a_hi) << " | " << value(p->b_lo) << "..." << value(p->b_hi) << " | "
           << (p->change > 0 ? "better" : p->change < 0 ? "**worse**" : (p->has_range ? "-" : "no range")) << " |\n";
      }
    }
    auto list_only = [&](const char* side, const std::vector<std::string>& v) {
      if (v.empty()) return;
      os << "\nOnly in " << side << " (" << v.size() << "):";
      for (size_t i = 0; i < v.size() && i < 10; ++i) os << (i ? "; " : " ") << v[i];
      if (v.size() > 10) os << "; ...";
      os << "\n";
    };
    list_only("A", f.only_a);
    list_only("B", f.only_b);
  }
  os << "\n" << d.changes() << " changes beyond the noise in " << d.files.size() << " files.\n";
  return os.str();
}

std::string compare_csv(const FolderDiff& d) {
  std::ostringstream os;
  os << "file,study,point,group,a,b,ratio,a_low,a_high,b_low,b_high,change\n";
  for (const auto& f : d.files)
    for (const auto& p : f.points)
      os << f.file << ',' << f.study << ',' << p.point << ',' << p.group << ',' << p.a << ',' << p.b << ','
         << p.ratio() << ',' << p.a_lo << ',' << p.a_hi << ',' << p.b_lo << ',' << p.b_hi << ','
         << (p.change > 0 ? "better" : p.change < 0 ? "worse" : p.has_range ? "none" : "no_range") << '\n';
  return os.str();
}

}  // namespace pk::sweeps
