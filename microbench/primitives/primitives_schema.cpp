#include "microbench/primitives/primitives_schema.h"

#include <algorithm>

namespace pk::prim {

const std::vector<std::string>& style_names() {
  static const std::vector<std::string> v = {kStylePk, kStyleNvshmem, kStyleNcclDev, kStyleEmulation};
  return v;
}

const std::vector<std::string>& ordering_labels() {
  static const std::vector<std::string> v = {kOrderRelaxed, kOrderReleaseAcquire, kOrderFenceThenRelaxed,
                                             kOrderAtomic,  kOrderLibrary,        kOrderWeak};
  return v;
}

bool is_ordering_label(const std::string& s) {
  const auto& v = ordering_labels();
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string protocol_of(const std::string& op, const std::string& mode) {
  if (op == "signal") return kProtocolFlag;
  if (op == "put_signal") return mode == "ll" ? kProtocolLL : kProtocolDataThenFlag;
  if (op == "bulk_put" && mode == "signal") return kProtocolDataThenCounter;
  return "";
}

const std::vector<std::string>& op_names() {
  static const std::vector<std::string> v = {"put",   "get",   "signal", "put_signal", "store",
                                             "quiet", "fence", "barrier", "bulk_put"};
  return v;
}

const std::vector<std::string>& study_columns() {
  static const std::vector<std::string> v = {
      "study",        "op",        "style",         "scope",          "elem_bytes",  "message_bytes",
      "mode",         "mechanism",  "protocol",  "ordering",  "ordering_detail", "call",         "memory",      "placement",
      "protocol_correct", "metric", "value",        "median_ns",      "p10_ns",      "p90_ns",
      "min_ns",       "round_trip_ns", "gbps",      "samples",        "ops_per_sample", "data_mismatches",
      "gpu_src",      "gpu_dst",   "library",      "clock_source",  "verified",       "status",      "error"};
  return v;
}

std::string point_name(const Spec& s) {
  std::string n = "primitives/" + s.op + "/" + s.style;
  auto add = [&](const std::string& v) {
    if (!v.empty()) n += "/" + v;
  };
  add(s.scope);
  if (s.elem_bytes) add(std::to_string(s.elem_bytes) + "B");
  if (s.message_bytes) add("msg:" + std::to_string(s.message_bytes));
  add(s.mode);
  add(s.mechanism);
  add(s.ordering);
  add(s.memory);
  add(s.placement);
  add(s.metric);
  return n;
}

Row spec_row(const Spec& s) {
  Row r;
  r["study"] = "primitives";
  r["op"] = s.op;
  r["style"] = s.style;
  r["scope"] = s.scope;
  r["elem_bytes"] = s.elem_bytes ? std::to_string(s.elem_bytes) : "";
  r["message_bytes"] = s.message_bytes ? std::to_string(s.message_bytes) : "";
  r["mode"] = s.mode;
  r["mechanism"] = s.mechanism;
  r["protocol"] = protocol_of(s.op, s.mode);
  r["ordering"] = s.ordering;
  r["ordering_detail"] = s.ordering_detail;
  r["call"] = s.call;
  r["memory"] = s.memory;
  r["placement"] = s.placement;
  r["protocol_correct"] = s.protocol_correct;
  r["metric"] = s.metric;
  return r;
}

}  // namespace pk::prim
