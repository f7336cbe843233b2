// pkbench_cost_model: the paper's cost model (section 3.1.1) with every ceiling read from
// this machine's CSVs; predicted beside measured for every fused point, the K from which
// GEMM+RS communication hides, and the predicted best SM split beside the measured one.
//   pkbench_cost_model --fused FUSED_CSV --transfer TRANSFER_CSV --sync SYNC_CSV [--gemm GEMM_CSV]
//                      [--comm-only COMM_ONLY_CSV] [--out MODEL_CSV] [--splits SPLITS_CSV]
//                      [--allow-mixed-machines] [--allow-mixed-commits]
//   pkbench_cost_model --needs-comm-only FUSED_CSV
//   pkbench_cost_model --regenerate RESULTS_DIR --comm-only-name COMM_ONLY
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "microbench/harness/tidy_csv.h"
#include "microbench/fused/cost_model.h"
#include "microbench/harness/tool_cli.h"

using namespace pk;
using namespace pk::fused;
using namespace pk::fused::model;

namespace {

const char* kUsage =
    "usage: pkbench_cost_model --fused FUSED_CSV --transfer TRANSFER_CSV --sync SYNC_CSV [--gemm GEMM_CSV]\n"
    "                          [--comm-only COMM_ONLY_CSV] [--out MODEL_CSV] [--splits SPLITS_CSV]\n"
    "                          [--allow-mixed-machines] [--allow-mixed-commits]\n"
    "       pkbench_cost_model --needs-comm-only FUSED_CSV\n"
    "       pkbench_cost_model --regenerate RESULTS_DIR --comm-only-name COMM_ONLY\n"
    "  FUSED_CSV     pkbench_fused's CSV (its gemm_pk rows give the GEMM rate per shape)\n"
    "  TRANSFER_CSV  pkbench_transfer's CSV (link rates: bidir, one_way, the fig3 SM sweep; HBM: local)\n"
    "  SYNC_CSV      pkbench_sync's CSV (launch, inter-SM and cross-GPU flag latencies)\n"
    "  GEMM_CSV      pkbench_gemm's CSV (the GEMM's rate against its SM count); without it the rate\n"
    "                scales linearly with the SMs\n"
    "  COMM_ONLY_CSV pkbench_fused's inter_sm rows of gemm_rs / gemm_ar at a shape whose GEMM is\n"
    "                negligible (K = 64): the communicator's rate per comm-SM count, T_comm of the\n"
    "                inter-SM GEMM+RS / GEMM+AR points (required where FUSED_CSV has such points)\n"
    "  MODEL_CSV     every fused point: measured, predicted and each term\n"
    "  SPLITS_CSV    per operator and shape, every inter-SM split measured: time, prediction, best\n"
    "  The CSVs must come from one machine (the GPU name) unless --allow-mixed-machines; the\n"
    "  inter-SM GEMM+RS / GEMM+AR rows and COMM_ONLY_CSV's rows from one commit (git_commit)\n"
    "  unless --allow-mixed-commits.\n"
    "  --needs-comm-only answers whether FUSED_CSV has points whose T_comm needs COMM_ONLY_CSV (inter_sm\n"
    "  GEMM+RS / GEMM+AR rows, status ok, on 2 or more GPUs): exit 0 yes, 1 no, 2 for a CSV it cannot\n"
    "  read. scripts/run.sh asks it before measuring communicator-only rows.\n"
    "  --regenerate runs the model on every fused CSV of a results folder (scripts/regenerate.sh): the\n"
    "  lines 'FUSED_CSV COMM_ONLY_CSV [FLAG...]' of RESULTS_DIR/fused/cost_model_inputs.txt (paths under\n"
    "  fused/, '-': no communicator-only rows; FLAG: --allow-mixed-commits, --allow-mixed-machines), else\n"
    "  fused.csv, fused_table3.csv and fused_fig5.csv with fused/COMM_ONLY where present, alone where they\n"
    "  need none; RESULTS_DIR/transfer/transfer.csv, sync/sync.csv and fused/gemm.csv (where present) as\n"
    "  the ceilings; outputs X_model.csv, X_splits.csv and X_model.txt beside each fused CSV. Exit 0, or 1\n"
    "  where a run failed (the others still run).\n";

std::string shape_key(const FusedPoint& p) { return op_name(p.op) + " " + p.shape.str() + " w" + std::to_string(p.world); }

struct Args {
  std::string fused_csv, transfer_csv, sync_csv, gemm_csv, comm_only_csv, out_csv, splits_csv, needs_comm_only_csv,
      regenerate_dir, comm_only_name;
  bool mixed = false, mixed_commits = false, needs_comm_only = false;
};

// Exits 2 naming a missing or unknown flag; 0 after --help.
Args parse_args(int argc, char** argv) {
  Args a;
  ToolCli cli(argv[0], kUsage);
  CLI::App& app = cli.app();
  const std::vector<CLI::Option*> model = {
      app.add_option("--fused", a.fused_csv),        app.add_option("--transfer", a.transfer_csv),
      app.add_option("--sync", a.sync_csv),          app.add_option("--gemm", a.gemm_csv),
      app.add_option("--comm-only", a.comm_only_csv), cli.add_output("--out", &a.out_csv),
      cli.add_output("--splits", &a.splits_csv),     app.add_flag("--allow-mixed-machines", a.mixed),
      app.add_flag("--allow-mixed-commits", a.mixed_commits)};
  CLI::Option* query = app.add_option("--needs-comm-only", a.needs_comm_only_csv);
  CLI::Option* folder = app.add_option("--regenerate", a.regenerate_dir)->check(CLI::ExistingDirectory);
  CLI::Option* name = app.add_option("--comm-only-name", a.comm_only_name)->needs(folder);
  folder->needs(name);
  for (CLI::Option* o : model) {
    query->excludes(o);
    folder->excludes(o);
  }
  query->excludes(folder);
  cli.parse(argc, argv);
  a.needs_comm_only = query->count() > 0;
  if (a.needs_comm_only || folder->count() > 0) return a;
  for (CLI::Option* o : {model[0], model[1], model[2]})
    if (o->count() == 0) cli.refuse(o->get_name() + " is required");
  return a;
}

// "" when every CSV names the same GPU (or none), else the error listing them.
std::string mixed_machines(const Ceilings& c) {
  std::set<std::string> gpus;
  for (const auto& [file, gpu] : c.machines)
    if (!gpu.empty()) gpus.insert(gpu);
  if (gpus.size() <= 1) return "";
  std::string list;
  for (const auto& [file, gpu] : c.machines) list += "\n  " + file + ": " + gpu;
  return "the CSVs come from different GPUs (--allow-mixed-machines to use them anyway):" + list;
}

// Two git_commit stamps name one commit: equal, or one a prefix of the other (short and long
// hashes); "unknown" (PKBENCH_GIT_COMMIT unset) matches only itself.
bool same_commit(const std::string& x, const std::string& y) {
  if (x.empty() || y.empty()) return x == y;
  return x.size() <= y.size() ? y.compare(0, x.size(), x) == 0 : x.compare(0, y.size(), y) == 0;
}

std::string joined(const std::set<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + (x.empty() ? std::string("(none)") : x);
  return s;
}

// The communicator-only rates for the points that need them: "" when read and consistent,
// else the error (exit 2). `commits` gets the line that says which commits were paired.
std::string communicator_inputs(const Args& a, Ceilings& c, const std::vector<FusedPoint>& pts, std::string& commits) {
  std::set<std::string> need, point_commits;
  for (const FusedPoint& p : pts)
    if (needs_communicator(p)) {
      need.insert(op_name(p.op) + " on " + std::to_string(p.world) + " GPUs");
      point_commits.insert(p.commit);
    }
  if (a.comm_only_csv.empty()) {
    if (need.empty()) return "";
    return "--comm-only is required: " + a.fused_csv + " has inter_sm rows of " + joined(need) +
           ", whose T_comm is the communicator's rate measured alone (pkbench_fused inter_sm at K = 64)";
  }
  try {
    read_communicator_rates(c, a.comm_only_csv);
  } catch (const std::exception& e) {
    return "--comm-only=" + a.comm_only_csv + ": " + e.what();
  }
  for (const FusedPoint& p : pts)
    if (needs_communicator(p) && !c.communicator.count({p.op, p.world}))
      return "--comm-only=" + a.comm_only_csv + ": no inter_sm row of " + op_name(p.op) + " on " + std::to_string(p.world) +
             " GPUs with status ok (needed by " + a.fused_csv + ")";
  const std::set<std::string> comm_commits(c.communicator_commits.begin(), c.communicator_commits.end());
  bool same = true;
  for (const auto& x : point_commits)
    for (const auto& y : comm_commits) same = same && same_commit(x, y);
  commits = "inter-SM GEMM+RS / GEMM+AR rows' git_commit " + joined(point_commits) + ", communicator-only rows' " +
            joined(comm_commits) + (same ? "" : " (different stamps: used with --allow-mixed-commits)");
  if (!same && !a.mixed_commits)
    return "--comm-only=" + a.comm_only_csv + ": its rows' git_commit (" + joined(comm_commits) + ") is not " + a.fused_csv +
           "'s inter-SM rows' (" + joined(point_commits) +
           "): a communicator's rates predict only the rows measured with it (--allow-mixed-commits where the stamps are "
           "known wrong)";
  return "";
}

void print_ceilings(std::FILE* out, const Ceilings& c, int world) {
  std::fprintf(out, "== Ceilings (read from the CSVs)\n");
  for (const auto& s : c.sources) std::fprintf(out, "  %s\n", s.c_str());
  if (c.mbarrier_ns > 0)
    std::fprintf(out, "  inter-SM / intra-SM sync: %.0f ns / %.0f ns (paper, H100: 832 / 64 ns)\n", c.sync_gpu_ns, c.mbarrier_ns);

  // K from which GEMM+RS's per-tile communication hides behind its computation.
  const double r_full = c.gemm_full_default;
  std::fprintf(out, "\n== When does communication hide? K >= sR/2B (s = 2 B, R = %.1f TFLOP/s: this GEMM at every SM)\n", r_full);
  std::fprintf(out, "  B = %.1f GB/s (one way):                  K >= %.0f\n", c.link_oneway_gbps, hide_k(r_full, c.link_oneway_gbps, 1));
  std::fprintf(out, "  B = %.1f GB/s (per direction, all send):  K >= %.0f\n", c.link_bidir_gbps, hide_k(r_full, c.link_bidir_gbps, 1));
  std::fprintf(out, "  only (w-1)/w of C leaves a GPU (w = %d):     K >= %.0f\n", world, hide_k(r_full, c.link_bidir_gbps, world));
  std::fprintf(out, "  (paper: K >= 2197 on H100 from the nominal 989 TFLOP/s and 450 GB/s)\n");
}

using InterPoints = std::map<std::string, std::vector<std::pair<FusedPoint, Prediction>>>;  // shape key -> inter_sm points

// Every point's prediction beside its measurement (printed, and a row of `model`); the
// inter_sm points by shape, for the split.
InterPoints print_predictions(std::FILE* out, const Ceilings& c, const std::vector<FusedPoint>& pts, TidyCsv& model) {
  std::fprintf(out, "\n== Predicted beside measured (us)\n");
  std::fprintf(out, "%-8s %-18s %-8s %4s %10s %10s %7s  %7s %9s %8s %9s %8s %7s  %s\n", "op", "shape", "sched", "comm",
              "measured", "predicted", "err%", "launch", "comp", "mem", "comm", "non-ovl", "sync", "max term");
  std::map<std::string, std::pair<int, int>> within;  // op -> (points within 15 %, points)
  InterPoints inter;
  for (const FusedPoint& p : pts) {
    const Prediction r = predict(c, p);
    const double err = p.measured_us > 0 ? 100 * (r.total_us - p.measured_us) / p.measured_us : 0;
    std::fprintf(out, "%-8s %-18s %-8s %4d %10.1f %10.1f %+7.1f  %7.1f %9.1f %8.1f %9.1f %8.1f %7.1f  %s\n",
                op_name(p.op).c_str(), p.shape.str().c_str(), p.schedule.c_str(), p.comm_sms, p.measured_us, r.total_us,
                err, r.launch_us, r.comp_us, r.mem_us, r.comm_us, r.non_overlap_us, r.sync_us, r.dominant.c_str());
    auto& w = within[op_name(p.op)];
    w.second++;
    if (std::fabs(err) <= 15) w.first++;
    if (p.schedule == "inter_sm") inter[shape_key(p)].push_back({p, r});
    model.append({{"op", op_name(p.op)}, {"m", std::to_string(p.shape.m)}, {"n", std::to_string(p.shape.n)},
                  {"k", std::to_string(p.shape.k)}, {"gpus", std::to_string(p.world)}, {"impl", p.schedule},
                  {"comm_sms", std::to_string(p.comm_sms)}, {"compute_sms", std::to_string(p.compute_sms)},
                  {"measured_us", fmt_num(p.measured_us)}, {"predicted_us", fmt_num(r.total_us)},
                  {"error_pct", fmt_num(err, 4)}, {"launch_us", fmt_num(r.launch_us)}, {"comp_us", fmt_num(r.comp_us)},
                  {"mem_us", fmt_num(r.mem_us)}, {"comm_us", fmt_num(r.comm_us)},
                  {"non_overlap_us", fmt_num(r.non_overlap_us)}, {"sync_us", fmt_num(r.sync_us)},
                  {"dominant", r.dominant}});
  }
  for (const auto& [op, w] : within)
    std::fprintf(out, "  %s: %d of %d points predicted within 15 %%\n", op.c_str(), w.first, w.second);

  return inter;
}

// Per shape, the inter-SM split measured best beside the one predicted best (printed, and
// rows of `splits`).
void print_splits(std::FILE* out, const Ceilings& c, InterPoints& inter, TidyCsv& splits) {
  std::fprintf(out, "\n== The SM split (inter-SM): measured best beside predicted best\n");
  for (auto& [key, v] : inter) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first.comm_sms < b.first.comm_sms; });
    std::vector<int> cand;
    for (const auto& x : v) cand.push_back(x.first.comm_sms);
    const auto best_m = std::min_element(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return a.first.measured_us < b.first.measured_us;
    });
    const int pred = predict_best_split(c, v.front().first, cand);
    const int steps = std::abs(static_cast<int>(std::find(cand.begin(), cand.end(), pred) - cand.begin()) -
                               static_cast<int>(best_m - v.begin()));
    std::fprintf(out, "  %-28s measured best %3d SMs (%.1f us), predicted %3d SMs: %d step%s apart%s\n", key.c_str(),
                best_m->first.comm_sms, best_m->first.measured_us, pred, steps, steps == 1 ? "" : "s",
                steps <= 1 ? "" : "  (MISSED)");
    for (const auto& [p, r] : v)
      splits.append({{"op", op_name(p.op)}, {"m", std::to_string(p.shape.m)}, {"n", std::to_string(p.shape.n)},
                     {"k", std::to_string(p.shape.k)}, {"gpus", std::to_string(p.world)},
                     {"comm_sms", std::to_string(p.comm_sms)}, {"measured_us", fmt_num(p.measured_us)},
                     {"predicted_us", fmt_num(r.total_us)}, {"best_measured", p.comm_sms == best_m->first.comm_sms ? "1" : "0"},
                     {"best_predicted", p.comm_sms == pred ? "1" : "0"}});
  }
  if (inter.empty()) std::fprintf(out, "  (no inter_sm rows)\n");
}

// One run of the model over a's CSVs, its printed model on `out`: 0, or (after
// "argv0: error: ..." on stderr) the exit code.
int run_model(const char* argv0, const Args& a, std::FILE* out) {
  Ceilings c;
  std::vector<FusedPoint> pts;
  try {
    c = read_ceilings(a.gemm_csv, a.transfer_csv, a.sync_csv, a.fused_csv);
    pts = read_fused_points(a.fused_csv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv0, e.what());
    return 2;
  }
  std::string commits;
  if (const std::string err = communicator_inputs(a, c, pts, commits); !err.empty()) {
    std::fprintf(stderr, "%s: error: %s\n", argv0, err.c_str());
    return 2;
  }
  if (!commits.empty()) c.sources.push_back(commits);
  if (const std::string mixed = mixed_machines(c); !mixed.empty() && !a.mixed) {
    std::fprintf(stderr, "%s: error: %s\n", argv0, mixed.c_str());
    return 2;
  }
  print_ceilings(out, c, pts.empty() ? 2 : pts.front().world);
  TidyCsv model(a.out_csv.empty() ? "/dev/null" : a.out_csv,
                {"op", "m", "n", "k", "gpus", "impl", "comm_sms", "compute_sms", "measured_us", "predicted_us", "error_pct",
                 "launch_us", "comp_us", "mem_us", "comm_us", "non_overlap_us", "sync_us", "dominant"});
  InterPoints inter = print_predictions(out, c, pts, model);
  TidyCsv splits(a.splits_csv.empty() ? "/dev/null" : a.splits_csv,
                 {"op", "m", "n", "k", "gpus", "comm_sms", "measured_us", "predicted_us", "best_measured", "best_predicted"});
  print_splits(out, c, inter, splits);
  try {
    if (!a.out_csv.empty()) model.flush();
    if (!a.splits_csv.empty()) splits.flush();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv0, e.what());
    return pk::exit_code_of(e);
  }
  return 0;
}

// --needs-comm-only: whether `fused_csv` has a point needs_communicator() names (exit 0), none (1),
// or could not be read (2).
int answer_needs_comm_only(const char* argv0, const std::string& fused_csv) {
  try {
    for (const FusedPoint& p : read_fused_points(fused_csv))
      if (needs_communicator(p)) return 0;
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv0, e.what());
    return 2;
  }
}

bool is_file(const std::string& path) { return std::filesystem::is_regular_file(path); }

// One model run of a results folder, as fused/cost_model_inputs.txt's line "FUSED_CSV COMM_ONLY_CSV
// [FLAG...]" holds it: a fused CSV, its communicator-only CSV ("-": none), the flags it may add.
using ModelInput = std::vector<std::string>;

std::string inputs_list(const std::string& dir) { return dir + "/fused/cost_model_inputs.txt"; }

// The runs of results folder `dir`: fused/cost_model_inputs.txt's lines where present; else
// fused.csv, fused_table3.csv and fused_fig5.csv, each with fused/COMM_ONLY (--comm-only-name:
// what scripts/run.sh's fused study measures beside them) where present, else alone where it
// needs no communicator-only rows. `ok` turns false where one cannot be told.
std::vector<ModelInput> model_inputs(const char* argv0, const std::string& dir, const std::string& comm_only, bool& ok) {
  std::vector<ModelInput> in;
  if (std::ifstream f(inputs_list(dir)); f) {
    for (std::string line; std::getline(f, line);) {
      std::istringstream ws(line);
      ModelInput m;
      for (std::string w; ws >> w;) m.push_back(w);
      if (m.empty() || m[0][0] == '#') continue;
      in.push_back(m);
    }
    return in;
  }
  for (const char* f : {"fused", "fused_table3", "fused_fig5"}) {
    const std::string csv = dir + "/fused/" + f + ".csv";
    if (!is_file(csv)) continue;
    if (is_file(dir + "/fused/" + comm_only)) {
      in.push_back({std::string(f) + ".csv", comm_only});
      continue;
    }
    switch (answer_needs_comm_only(argv0, csv)) {
      case 1: in.push_back({std::string(f) + ".csv", "-"}); break;
      case 0:
        std::fprintf(stderr, "%s: cost model on fused/%s.csv: not run (needs fused/%s: the inter-SM communicators' rates; "
                     "scripts/run.sh fused measures it)\n", argv0, f, comm_only.c_str());
        break;
      default: ok = false;
    }
  }
  return in;
}

// --regenerate DIR --comm-only-name COMM_ONLY: the model on every fused CSV of results folder DIR, with this machine's link,
// HBM and latency ceilings (transfer/transfer.csv, sync/sync.csv), the GEMM's rate against its
// SMs (fused/gemm.csv, where measured) and the communicator-only rows model_inputs() pairs with
// it; its outputs beside it (X_model.csv, X_splits.csv, X_model.txt, each written whole).
// 0, or 1 where a run failed (the others still run).
int regenerate(const char* argv0, std::string dir, const std::string& comm_only) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  bool ok = true;
  const std::string list = inputs_list(dir);
  for (const ModelInput& m : model_inputs(argv0, dir, comm_only, ok)) {
    std::string line;
    for (const auto& w : m) line += (line.empty() ? "" : " ") + w;
    if (m.size() < 2) {
      std::fprintf(stderr, "%s: %s: '%s': not 'FUSED_CSV COMM_ONLY_CSV [FLAG...]'\n", argv0, list.c_str(), line.c_str());
      ok = false;
      continue;
    }
    Args a;
    bool flags_ok = true;
    for (size_t i = 2; i < m.size(); ++i) {
      if (m[i] == "--allow-mixed-commits") a.mixed_commits = true;
      else if (m[i] == "--allow-mixed-machines") a.mixed = true;
      else {
        std::fprintf(stderr, "%s: %s: '%s': not a flag it may give\n", argv0, list.c_str(), m[i].c_str());
        flags_ok = false;
      }
    }
    if (!flags_ok) {
      ok = false;
      continue;
    }
    std::string f = m[0];
    if (f.size() >= 4 && f.compare(f.size() - 4, 4, ".csv") == 0) f.resize(f.size() - 4);
    a.transfer_csv = dir + "/transfer/transfer.csv";
    a.sync_csv = dir + "/sync/sync.csv";
    if (!is_file(a.transfer_csv) || !is_file(a.sync_csv)) {
      std::fprintf(stderr, "%s: cost model on fused/%s.csv: not run (needs transfer/transfer.csv and sync/sync.csv of this machine)\n",
                   argv0, f.c_str());
      continue;
    }
    const std::string out = dir + "/fused/" + f;
    a.fused_csv = out + ".csv";
    if (is_file(dir + "/fused/gemm.csv")) a.gemm_csv = dir + "/fused/gemm.csv";
    if (m[1] != "-") a.comm_only_csv = dir + "/fused/" + m[1];
    a.out_csv = out + "_model.csv";
    a.splits_csv = out + "_splits.csv";
    // The printed model goes to its file only once complete (held in memory, then written whole).
    char* text = nullptr;
    size_t len = 0;
    std::FILE* fp = open_memstream(&text, &len);
    if (!fp) std::fprintf(stderr, "%s: error: no memory for the printed model of %s\n", argv0, a.fused_csv.c_str());
    const int rc = fp ? run_model(argv0, a, fp) : 2;
    if (fp) std::fclose(fp);
    const std::string printed = text ? std::string(text, len) : std::string();
    std::free(text);
    if (rc != 0) {
      ok = false;
      continue;
    }
    try {
      pk::write_file_atomically(out + "_model.txt", printed);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: error: %s\n", argv0, e.what());
      ok = false;
    }
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  if (a.needs_comm_only) return answer_needs_comm_only(argv[0], a.needs_comm_only_csv);
  if (!a.regenerate_dir.empty()) return regenerate(argv[0], a.regenerate_dir, a.comm_only_name);
  return run_model(argv[0], a, stdout);
}
