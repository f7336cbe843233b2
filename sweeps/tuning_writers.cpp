#include "sweeps/tuning_writers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#ifdef PKBENCH_HAVE_JSON
#include <nlohmann/json.hpp>
#endif

#include "microbench/harness/csv_table.h"
#include "pkbench/tuning.h"

namespace pk::sweeps {
namespace {

std::string camel(const std::string& name) {
  std::string out;
  bool up = true;
  for (char c : name) {
    if (c == '_' || c == '-') {
      up = true;
      continue;
    }
    out += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return out;
}

std::string cpp_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string cpp_type(CellKind k) {
  switch (k) {
    case CellKind::text: return "const char*";
    case CellKind::integer: return "long long";
    case CellKind::number: return "double";
    case CellKind::boolean: return "bool";
  }
  return "";
}

std::string cpp_value(const Cell& c, CellKind k) {
  if (std::holds_alternative<std::monostate>(c)) {
    switch (k) {
      case CellKind::text: return "\"\"";
      case CellKind::integer: return "0";
      case CellKind::number: return "0.0";
      case CellKind::boolean: return "false";
    }
  }
  switch (k) {
    case CellKind::text: return cpp_string(cell_text(c));
    case CellKind::integer: return std::to_string(std::get<int64_t>(c)) + "LL";
    case CellKind::number: {
      char b[64];
      std::snprintf(b, sizeof b, "%.9g", std::get<double>(c));
      std::string s = b;
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return s;
    }
    case CellKind::boolean: return std::get<bool>(c) ? "true" : "false";
  }
  return "";
}

}  // namespace

bool json_available() {
#ifdef PKBENCH_HAVE_JSON
  return true;
#else
  return false;
#endif
}

std::string table_json(const TuningTable& t) {
  check_kinds(t);
#ifdef PKBENCH_HAVE_JSON
  using nlohmann::ordered_json;
  ordered_json j;
  j["schema"] = "pkbench-tuning";
  j["schema_version"] = pkbench::tuning::kSchemaVersion;
  j["table"] = t.name;
  j["doc"] = t.doc;
  j["keys"] = t.keys;
  if (!t.from_column.empty()) j["bucket"] = {{"from", t.from_column}, {"to", t.to_column}};
  j["sources"] = t.sources;
  j["peer_modes"] = t.peer_modes;
  {
    std::set<std::string> ms;
    if (!t.keys.empty() && t.keys[0] == "machine")
      for (size_t r = 0; r < t.rows.size(); ++r) ms.insert(cell_text(t.at(r, "machine")));
    j["machines"] = std::vector<std::string>(ms.begin(), ms.end());
  }
  ordered_json cols = ordered_json::array();
  for (const auto& c : t.columns) {
    const char* kind = c.kind == CellKind::text      ? "text"
                       : c.kind == CellKind::integer ? "integer"
                       : c.kind == CellKind::number  ? "number"
                                                     : "boolean";
    cols.push_back({{"name", c.name}, {"kind", kind}, {"doc", c.doc}});
  }
  j["columns"] = cols;
  ordered_json rows = ordered_json::array();
  for (const auto& row : t.rows) {
    ordered_json r = ordered_json::object();
    for (size_t c = 0; c < row.size(); ++c) {
      const Cell& v = row[c];
      const std::string& n = t.columns[c].name;
      if (std::holds_alternative<std::monostate>(v)) r[n] = nullptr;
      else if (std::holds_alternative<std::string>(v)) r[n] = std::get<std::string>(v);
      else if (std::holds_alternative<int64_t>(v)) r[n] = std::get<int64_t>(v);
      else if (std::holds_alternative<double>(v)) r[n] = std::get<double>(v);
      else r[n] = std::get<bool>(v);
    }
    rows.push_back(std::move(r));
  }
  j["rows"] = rows;
  return j.dump(1) + "\n";
#else
  throw std::runtime_error("built without nlohmann-json (apt install nlohmann-json3-dev, or scripts/stage-deps.sh): no JSON");
#endif
}

namespace {

// The generated header's names for table `t`: struct TransferTuning, kTransferTuning, ...
std::string struct_name(const TuningTable& t) { return camel(t.name) + "Tuning"; }

void write_struct(std::ostream& os, const TuningTable& t) {
  os << "\n// ---- " << t.name << " ----\n// " << t.doc << "\n";
  for (const auto& s : t.sources) os << "// source: " << s << "\n";
  os << "struct " << struct_name(t) << " {\n";
  for (const auto& c : t.columns) os << "  " << cpp_type(c.kind) << " " << c.name << ";  // " << c.doc << "\n";
  os << "};\n";
}

void write_rows(std::ostream& os, const TuningTable& t) {
  const std::string S = struct_name(t), K = "k" + S;
  os << "\ninline constexpr " << S << " " << K << "[] = {\n";
  if (t.rows.empty()) os << "  {},  // no rows measured\n";
  for (const auto& row : t.rows) {
    os << "  {";
    for (size_t c = 0; c < row.size(); ++c) os << (c ? ", " : "") << cpp_value(row[c], t.columns[c].kind);
    os << "},\n";
  }
  os << "};\ninline constexpr std::size_t " << K << "Rows = " << t.rows.size() << ";\n";
}

void write_columns(std::ostream& os, const TuningTable& t) {
  const std::string S = struct_name(t);
  os << "\n// Every column by name (pkbench/tuning.h reads the rows through these).\n"
     << "inline constexpr Column<" << S << "> k" << S << "Columns[] = {\n";
  for (const auto& c : t.columns) os << "  {\"" << c.name << "\", &" << S << "::" << c.name << "},\n";
  os << "};\n";
}

// lookup_<table>(keys..., [bytes]): the keys are this table's; the search is pkbench/tuning.h's
// lookup_bucket (tables with a size bucket) or lookup_row.
void write_lookup(std::ostream& os, const TuningTable& t) {
  const std::string S = struct_name(t), K = "k" + S;
  if (!t.from_column.empty() && t.columns[t.column(t.from_column)].kind != CellKind::integer)
    throw std::logic_error("table " + t.name + ": bucket column '" + t.from_column + "' is not an integer");
  os << "\n// The row whose keys match";
  if (!t.from_column.empty())
    os << " and whose bucket [" << t.from_column << ", " << t.to_column
       << "] starts at the largest size <= bytes (the smallest bucket for sizes below every bucket)";
  os << "; nullptr if none.\nconstexpr const " << S << "* lookup_" << t.name << "(";
  std::string match;
  for (size_t k = 0; k < t.keys.size(); ++k) {
    const TableColumn& c = t.columns[t.column(t.keys[k])];
    const bool text = c.kind == CellKind::text;
    os << (k ? ", " : "") << (text ? "std::string_view " : cpp_type(c.kind) + " ") << c.name;
    match += (k ? " &&\n           " : "") + (text ? "std::string_view(r." + c.name + ")" : "r." + c.name) + " == " + c.name;
  }
  if (t.keys.empty()) match = "true";
  if (t.from_column.empty()) {
    os << ") {\n  return lookup_row(" << K << ", " << K << "Rows, ";
  } else {
    os << (t.keys.empty() ? "" : ", ") << "unsigned long long bytes) {\n  return lookup_bucket(" << K << ", " << K
       << "Rows, &" << S << "::" << t.from_column << ", bytes, ";
  }
  os << "[&](const " << S << "& r) {\n    return " << match << ";\n  });\n}\n";
}

}  // namespace

std::string tables_header(const std::vector<TuningTable>& tables, const std::string& generated_by) {
  std::ostringstream os;
  os << "// Generated by " << generated_by << "; do not edit: regenerate from the CSVs.\n"
     << "// pkbench tuning tables as constexpr data (C++17 or later): per table a row struct, its rows,\n"
     << "// its columns and a lookup naming its keys; the lookups' search is pkbench/tuning.h's.\n"
     << "// Empty cells of the CSV are 0 / \"\" / false here; each field's comment says what that means.\n"
     << "#pragma once\n"
     // Under an older standard: one error naming C++17 (the #else keeps the body from adding hundreds).
     << "#if !defined(__cplusplus) || (__cplusplus < 201703L && (!defined(_MSVC_LANG) || _MSVC_LANG < 201703L))\n"
     << "#error \"pkbench_tuning.h (generated by pkbench_tune) needs C++17 or later: compile with -std=c++17 or newer\"\n"
     << "#else\n"
     << "#include <cstddef>\n#include <string_view>\n\n#include <pkbench/tuning.h>\n\n"
     << "namespace pkbench::tuning {\n"
     << "\n// The tables' schema version (pkbench/tuning.h refuses any other).\ninline constexpr int kGeneratedSchemaVersion = "
     << pkbench::tuning::kSchemaVersion << ";\n";
  std::set<std::string> machines;
  for (const auto& t : tables) {
    check_kinds(t);
    write_struct(os, t);
    write_rows(os, t);
    write_columns(os, t);
    write_lookup(os, t);
    if (!t.keys.empty() && t.keys[0] == "machine")
      for (size_t r = 0; r < t.rows.size(); ++r) machines.insert(cell_text(t.at(r, "machine")));
  }
  os << "\n// Every table: sink(name, schema version, rows, row count, columns).\ntemplate <class Sink>\n"
     << "void for_each_table(Sink&& sink) {\n";
  for (const auto& t : tables) {
    const std::string K = "k" + struct_name(t);
    os << "  sink(\"" << t.name << "\", kGeneratedSchemaVersion, " << K << ", " << K << "Rows, " << K << "Columns);\n";
  }
  os << "}\n";
  os << "\n// Machines with at least one row: scripts/lib.sh names a machine the same way (\"h200x2\").\n"
     << "inline constexpr const char* kMachines[] = {";
  if (machines.empty()) os << "\"\"";
  bool first = true;
  for (const auto& m : machines) {
    os << (first ? "" : ", ") << cpp_string(m);
    first = false;
  }
  os << "};\n\n}  // namespace pkbench::tuning\n\n#endif  // C++17\n";
  return os.str();
}

pkbench::tuning::Table api_table(const TuningTable& t) {
  check_kinds(t);
  using pkbench::tuning::Value;
  pkbench::tuning::Table out;
  out.name = t.name;
  out.origin = t.sources.empty() ? t.name + " (in memory)" : t.sources[0];
  out.schema_version = pkbench::tuning::kSchemaVersion;
  out.peer_modes = t.peer_modes;
  for (const auto& row : t.rows) {
    pkbench::tuning::Row r;
    for (size_t c = 0; c < row.size(); ++c) {
      Value v;
      if (const auto* s = std::get_if<std::string>(&row[c])) v.kind = Value::text, v.s = *s;
      else if (const auto* i = std::get_if<int64_t>(&row[c])) v.kind = Value::integer, v.i = *i;
      else if (const auto* d = std::get_if<double>(&row[c])) v.kind = Value::number, v.d = *d;
      else if (const auto* b = std::get_if<bool>(&row[c])) v.kind = Value::boolean, v.b = *b;
      r.cells.emplace(t.columns[c].name, std::move(v));
    }
    out.rows.push_back(std::move(r));
  }
  return out;
}

CsvRows read_table_csv(const std::string& path) {
  // Tables are small: the generic reader with every header column as text.
  CsvRows out;
  out.header = peek_csv(path).header;
  std::vector<Field> f;
  for (const auto& h : out.header) f.push_back({h, ColumnType::text, true});
  ReadOptions o;
  o.one_machine = false;  // a merged table holds several machines
  CsvTable t = CsvTable::read(path, f, o);
  for (size_t r = 0; r < t.rows(); ++r) {
    std::vector<std::string> row;
    for (const auto& h : out.header) row.emplace_back(t.text(r, h));
    out.rows.push_back(std::move(row));
  }
  return out;
}

TuningTable merge_tables(const std::vector<TuningTable>& tables) {
  if (tables.empty()) throw std::logic_error("merge_tables: nothing to merge");
  TuningTable out = tables[0];
  out.rows.clear();
  out.sources.clear();
  out.peer_modes.clear();
  // Two tables may share a machine when they answer different keys (e.g. one run in bf16 and
  // one in fp32); the same keys from two runs would be two competing answers: refused.
  std::map<std::string, std::string> key_source;
  for (const auto& t : tables) {
    if (t.name != out.name || t.columns.size() != out.columns.size())
      throw std::logic_error("merge_tables: tables " + out.name + " and " + t.name + " differ");
    std::set<std::string> here;
    for (size_t r = 0; r < t.rows.size(); ++r) {
      std::string k;
      for (const auto& c : t.keys) k += (k.empty() ? "" : " ") + cell_text(t.at(r, c));
      here.insert(k);
    }
    const std::string src = t.sources.empty() ? std::string("(unnamed)") : t.sources[0];
    for (const auto& k : here) {
      auto [it, fresh] = key_source.emplace(k, src);
      if (!fresh)
        throw std::runtime_error("two " + t.name + " tables answer " + k + ": " + it->second + " and " + src +
                                 " (one results folder per machine, or CSVs of different keys)");
    }
    out.rows.insert(out.rows.end(), t.rows.begin(), t.rows.end());
    out.sources.insert(out.sources.end(), t.sources.begin(), t.sources.end());
    for (const auto& m : t.peer_modes)
      if (std::find(out.peer_modes.begin(), out.peer_modes.end(), m) == out.peer_modes.end()) out.peer_modes.push_back(m);
  }
  return out;
}

}  // namespace pk::sweeps
