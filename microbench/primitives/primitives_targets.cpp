#include "microbench/primitives/primitives_targets.h"

#include <algorithm>

#include "microbench/harness/format.h"
#include "microbench/harness/row_reader.h"
#include "microbench/harness/verdict.h"
#include "microbench/primitives/primitives_summary.h"

namespace pk::prim {

namespace {
const char* const kPrimOrigin = "issue: library primitives; results/h200x2/primitives/README.md";
}  // namespace

const TargetSpecs& primitives_target_specs() {
  static const TargetSpecs v({
      {"primitives.put_signal", kPrimOrigin,
       "fastest correct data-carrying signal (data, then flag), one-way: library / this suite", ">=", 1.0, "x"},
      {"primitives.signal", kPrimOrigin, "fastest bare signal, one-way: library / this suite", ">=", 1.0, "x"},
      {"primitives.get_l2_resident", kPrimOrigin,
       "fastest dependent remote load, peer L2-resident: library / this suite", ">=", 1.0, "x"},
      {"primitives.get_l2_miss", kPrimOrigin, "fastest dependent remote load, peer L2 miss: library / this suite",
       ">=", 1.0, "x"},
  });
  return v;
}

namespace {

struct PrimRow {
  std::string op, style, ordering, protocol, placement, correct, desc;
  Timing t;
  CrossCheck check;
  bool library() const { return style == "nvshmem" || style == "nccl_dev"; }
  // A signal is compared only with a library signal of the same protocol and memory ordering
  // (a library call whose ordering is its own, "library-defined", matches none of ours); a
  // dependent load is compared with the library's load whatever its ordering: the load is the cost.
  bool comparable(const PrimRow& lib) const {
    return protocol == lib.protocol && (ordering == lib.ordering || op == "get");
  }
};

const RowReader<PrimRow>& prim_reader() {
  using R = PrimRow;
  using T = ColumnType;
  static const RowReader<R> r =
      RowReader<R>()
          .text("op", &R::op).text("style", &R::style).text("ordering", &R::ordering, false)
          .text("protocol", &R::protocol, false).text("placement", &R::placement, false)
          .text("protocol_correct", &R::correct, false)
          .also({"scope", T::text, false}).also({"ordering_detail", T::text, false}).also({"memory", T::text, false})
          .also({"value", T::number}).also({"status"}).also({"ref_tool", T::text, false})
          .also({"ref_time_ns", T::number, false}).also({"ref_ratio", T::number, false});
  return r;
}

std::vector<PrimRow> read_primitives(const std::string& path, const StudySchemas* schemas) {
  const CsvTable t = CsvTable::read(path, prim_reader().fields(), {"primitives", true, schemas ? schemas : &own_schema()});
  const auto row_of = prim_reader().rows(t);
  std::vector<PrimRow> rows;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok") continue;
    PrimRow r = row_of(i);
    // CSVs older than the protocol column name the LL protocol only in the ordering's detail.
    if (r.protocol.empty() && t.text(i, "ordering_detail").substr(0, 11) == "LL protocol") r.protocol = "ll";
    r.t = Timing{t.number(i, "value"), 0, 0};
    r.check = cross_check(std::string(t.text(i, "ref_tool")), t.number(i, "ref_time_ns"), t.number(i, "ref_ratio"));
    r.desc = r.style + " " + std::string(t.text(i, "scope")) + " " + (r.protocol.empty() ? "" : r.protocol + " ") +
             r.ordering + (t.empty(i, "memory") ? "" : " " + std::string(t.text(i, "memory")));
    rows.push_back(r);
  }
  return rows;
}

TargetResult prim_target(const std::string& id, const std::vector<PrimRow>& rows,
                         bool (*wanted)(const PrimRow&, const std::string&), const std::string& arg) {
  const TargetSpecs& spec = primitives_target_specs();
  const std::string baseline = arg.rfind("peer_", 0) == 0
                                   ? "fastest library load (NVSHMEM, NCCL device API), same placement"
                                   : "fastest library row (NVSHMEM, NCCL device API) of the same protocol and ordering";
  std::vector<const PrimRow*> ours;
  for (const auto& r : rows)
    if (r.style == "pk" && r.t.measured() && wanted(r, arg)) ours.push_back(&r);
  std::sort(ours.begin(), ours.end(), [](auto a, auto b) { return a->t.median < b->t.median; });
  // This suite's fastest row that any library row is comparable with.
  for (const PrimRow* p : ours) {
    std::vector<Candidate> mine{{p->desc, p->t, {}, 0}}, libs;
    std::vector<const PrimRow*> lib_rows;
    for (const auto& r : rows)
      if (r.library() && r.t.measured() && wanted(r, arg) && p->comparable(r)) {
        libs.push_back({r.desc, r.t, r.check, static_cast<int>(lib_rows.size())});
        lib_rows.push_back(&r);
      }
    if (libs.empty()) continue;
    const PointVerdict v = compare_best(mine, libs);
    const PrimRow& lib = *lib_rows[v.base.fastest->index];
    TargetResult t = judge_target(spec(id),
                                  num(p->t.median, 0) + " ns (" + p->desc + ") against " + num(lib.t.median, 0) +
                                      " ns (" + lib.desc + "): " + num(v.speedup, 2) + "x, " + outcome_text(v.outcome),
                                  judged_speedup(v), baseline, v.check, v.outcome == Outcome::tie ? v.speedup : 0);
    if (p != ours.front())
      t.note = "; this suite's fastest row (" + num(ours.front()->t.median, 0) + " ns, " + ours.front()->desc +
               ") has no library row of its protocol and ordering";
    return t;
  }
  return unmeasured_target(spec(id), "no pair of rows of the same protocol and ordering", baseline);
}

}  // namespace

std::vector<TargetResult> primitives_targets(const std::string& path, const StudySchemas* schemas) {
  const std::vector<PrimRow> rows = read_primitives(path, schemas);
  auto op_correct = [](const PrimRow& r, const std::string& op) {
    return r.op == op && (op != "put_signal" || r.correct == "yes");
  };
  auto get_at = [](const PrimRow& r, const std::string& placement) { return r.op == "get" && r.placement == placement; };
  return {prim_target("primitives.put_signal", rows, op_correct, "put_signal"),
          prim_target("primitives.signal", rows, op_correct, "signal"),
          prim_target("primitives.get_l2_resident", rows, get_at, "peer_l2_resident"),
          prim_target("primitives.get_l2_miss", rows, get_at, "peer_l2_miss")};
}

}  // namespace pk::prim
