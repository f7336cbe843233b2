#include "microbench/transfer/mechanism.h"

#include <algorithm>

#include "microbench/harness/cuda_check.h"
#include "microbench/harness/metadata.h"

namespace pk::transfer {

#define PK_TRANSFER_MECHANISM(fn) const Mechanism& fn##_mechanism();
#include "microbench/transfer/mechanism_list.h"
#undef PK_TRANSFER_MECHANISM

const std::vector<const Mechanism*>& mechanisms() {
  static const std::vector<const Mechanism*> all = {
#define PK_TRANSFER_MECHANISM(fn) &fn##_mechanism(),
#include "microbench/transfer/mechanism_list.h"
#undef PK_TRANSFER_MECHANISM
  };
  return all;
}

const Mechanism& mechanism(const std::string& name) {
  for (const Mechanism* m : mechanisms())
    if (m->name() == name) return *m;
  std::string known;
  for (const auto& n : mechanism_names()) known += (known.empty() ? "" : ", ") + n;
  throw ArgError("unknown mechanism '" + name + "' (known: " + known + ")");
}

bool mechanism_uses_sms(std::string_view name) {
  for (const Mechanism* m : mechanisms())
    if (m->name() == name) return m->uses_sms();
  return true;
}

std::vector<std::string> mechanism_names() {
  std::vector<std::string> v;
  for (const Mechanism* m : mechanisms()) v.push_back(m->name());
  return v;
}

std::vector<uint64_t> pow2_sizes(uint64_t lo, uint64_t hi) {
  std::vector<uint64_t> v;
  for (uint64_t x = lo; x <= hi; x *= 2) v.push_back(x);
  return v;
}

uint64_t largest_pow2_at_most(uint64_t x) {
  uint64_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

bool Mechanism::has_knob(const std::string& k) const {
  for (const KnobUse& u : knobs())
    if (u.knob.name == k) return true;
  return false;
}

bool Mechanism::uses_sms() const { return has_knob(knobs::sms.name); }

namespace {
void check_allowed(const Mechanism& m, const TransferPoint& p, bool computed_too) {
  for (const KnobUse& u : m.knobs()) {
    const int v = p.knob(u.knob.name);
    if (v == 0 && !computed_too) continue;  // resolve_knobs() computes it
    const auto& ok = u.knob.allowed;
    if (v < 1 || (!ok.empty() && std::find(ok.begin(), ok.end(), v) == ok.end())) {
      std::string list;
      for (int a : ok) list += (list.empty() ? "" : ", ") + std::to_string(a);
      throw ArgError("--" + u.knob.flag + "=" + std::to_string(v) + ": " + m.name() + " accepts " +
                     (ok.empty() ? std::string("values >= 1") : list));
    }
  }
}
}  // namespace

void Mechanism::resolve(TransferPoint& p, const GpuInfo& g) const {
  KnobValues kept;
  for (const KnobUse& u : knobs()) {
    int v = p.knob(u.knob.name);
    if (v == 0) v = u.default_value;
    if (u.knob.name == knobs::sms.name && v == 0) v = g.sm_count;  // "all"
    kept[u.knob.name] = v;
  }
  p.knobs = kept;  // knobs this mechanism does not use are dropped
  check_allowed(*this, p, false);
  resolve_knobs(p, g);
  check_allowed(*this, p, true);
  validate_common(p, g, uses_sms());
}

const std::vector<Knob>& all_knobs() {
  static const std::vector<Knob> all = [] {
    std::vector<Knob> v;
    for (const Mechanism* m : mechanisms())
      for (const KnobUse& u : m->knobs()) {
        auto it = std::find_if(v.begin(), v.end(), [&](const Knob& k) { return k.name == u.knob.name; });
        if (it == v.end()) {
          v.push_back(u.knob);
        } else if (it->flag != u.knob.flag || it->unit != u.knob.unit) {
          throw std::logic_error("knob '" + u.knob.name + "' is declared differently by " + m->name());
        } else {
          // The flag's help lists every allowed value any mechanism accepts.
          for (int a : u.knob.allowed)
            if (std::find(it->allowed.begin(), it->allowed.end(), a) == it->allowed.end()) it->allowed.push_back(a);
          std::sort(it->allowed.begin(), it->allowed.end());
        }
      }
    return v;
  }();
  return all;
}

const std::vector<std::string>& transfer_columns() {
  static const std::vector<std::string> c = [] {
    std::vector<std::string> v = {"study",        "sweep",         "mechanism",    "direction", "pattern",
                                  "src_gpu",      "dst_gpu",       "flows",        "message_bytes",
                                  "bytes_per_op", "ops_per_flow",  "groups"};
    for (const Knob& k : all_knobs()) v.push_back(k.name);
    for (const char* m : {"iters_per_sample", "samples", "time_us_median", "time_us_min", "time_us_max", "cv", "gbps",
                          "gbps_best", "gbps_total", "gbps_per_gpu", "gbps_flow_min", "gbps_flow_max", "line_rate_gbps",
                          "pct_of_line_rate", "line_rate_source", "gpus_used", "sm_clock_mhz_start",
                          "sm_clock_mhz_end", "sm_clock_mhz_max",
                          // nvbandwidth's figure for a row with a counterpart (transfer_ref.h)
                          "ref_tool", "ref_gbps", "ref_ratio", "verified", "status", "error"})
      v.push_back(m);
    for (const auto& m : metadata_columns()) v.push_back(m);
    return v;
  }();
  return c;
}

namespace knobs {
const Knob sms{"sms", "sms", "SMs", "SMs per issuing GPU (list/range; `all`: every SM)", {}};
const Knob blocks_per_sm{"blocks_per_sm", "blocks-per-sm", "blocks", "blocks pinned per SM", {}};
const Knob threads{"threads", "threads", "threads", "threads per block", {}};
}  // namespace knobs

}  // namespace pk::transfer
