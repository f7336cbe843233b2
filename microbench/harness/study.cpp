#include "microbench/harness/study.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <regex>

#include "microbench/harness/args.h"
#include "microbench/harness/capability.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/metadata.h"
#include "microbench/harness/topology.h"

namespace pk {
namespace {

// Google Benchmark's flags among argv[1..argc) (Cli::parse leaves only those) that its run
// would refuse only later, after the GPU check: --benchmark_filter's regular expression, and
// --benchmark_out's folder (check_paths: on the rank that writes). ArgError naming the flag.
void check_benchmark_flags(int argc, char** argv, bool check_paths) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const size_t eq = a.find('=');
    const std::string flag = a.substr(0, eq), value = eq == std::string::npos ? "" : a.substr(eq + 1);
    if (flag == "--benchmark_filter") {
      // Google Benchmark: "all" and "." match everything; a leading '-' negates the rest.
      std::string re = value;
      if (!re.empty() && re[0] == '-') re.erase(0, 1);
      if (re.empty() || re == "all") continue;
      try {
        std::regex r(re, std::regex::extended);
      } catch (const std::regex_error& e) {
        throw ArgError("--benchmark_filter=" + value + ": not a valid regular expression (" + e.what() + ")");
      }
    } else if (flag == "--benchmark_out" && check_paths) {
      check_output_path(value, "--benchmark_out");
    }
  }
}

}  // namespace

StudyMain::StudyMain(std::string program, std::string description, std::string default_csv)
    : cli_(std::move(program), std::move(description)), csv_path_(std::move(default_csv)) {
  auto& app = cli_.app();
  app.add_option("--csv", csv_path_, "tidy CSV output, rewritten atomically after every point")
      ->capture_default_str();
  app.add_option("--peer-mode", mode_text_,
                 "how GPUs share memory: single (one process drives every GPU; default without mpirun), "
                 "ipc (cudaIpc handles; default under mpirun), vmm (cuMemCreate + file descriptors), "
                 "virtual (--ranks ranks on one GPU, each a green context with an equal share of its SMs; "
                 "HBM, not NVLink: for correctness, sanitizers and per-SM rates)")
      ->check(CLI::IsMember(peer_mode_names()));
  app.add_option("--ranks", virtual_ranks_, "with --peer-mode=virtual: ranks on the one GPU (2-8; default $PKBENCH_VIRTUAL_RANKS or 2)");
  app.add_flag("--list", list_only_, "print the points and exit (with each GPU count's estimated time on stderr)");
  app.add_option("--world", world_,
                 "with --list where this machine's GPUs are not used (--arch, or none here): the GPU count to plan "
                 "for (default 2)")
      ->check(CLI::Range(0, kMaxGpus));
  std::string archs;
  for (const auto& a : arch_names()) archs += (archs.empty() ? "" : ", ") + a;
  app.add_option("--arch", arch_,
                 "with --list: plan for a GPU of this architecture (" + archs +
                     ") instead of this machine's, and say which points would be skipped and why");
}

StudyMain::~StudyMain() {
  sub_group_.reset();
  sub_comm_.reset();
  group_.reset();  // symmetric memory goes before MPI_Finalize (importers close collectively)
  comm_.reset();
}

int StudyMain::begin(int* argc, char** argv) {
  init_cuda_environment();
  try {
    comm_ = make_comm(argc, &argv);
  } catch (const ArgError& e) {
    return cli_.bad_input(e.what());
  }
  // Every rank parses the same argv; only rank 0 speaks.
  const int rc = cli_.parse(argc, argv, /*quiet=*/!is_root());
  if (rc >= 0) return rc;
  std::string err;
  try {
    mode_ = mode_text_.empty() ? default_peer_mode(comm_->is_mpi()) : parse_peer_mode(mode_text_);
    check_peer_mode(mode_, *comm_);
    if (!arch_.empty()) {
      arch_gpu(arch_);
      if (!list_only_) throw ArgError("--arch=" + arch_ + " plans a --list for another GPU: add --list");
    }
    // --ranks given is checked as given (--ranks=0 is refused, not the default).
    const bool ranks_given = cli_.app().count("--ranks") > 0;
    if (ranks_given && mode_ != PeerMode::virt)
      throw ArgError("--ranks: only --peer-mode=virtual takes a rank count (--ranks=" + std::to_string(virtual_ranks_) +
                     "; other modes have one rank per GPU)");
    if (mode_ == PeerMode::virt && !ranks_given) virtual_ranks_ = default_virtual_ranks();
    check_virtual_ranks(mode_, virtual_ranks_);
    // Virtual ranks are the run's GPUs: a planned --list is for that many, and --world may
    // only say the same.
    if (mode_ == PeerMode::virt) {
      if (world_ > 0 && world_ != virtual_ranks_)
        throw ArgError("--world=" + std::to_string(world_) + " but --peer-mode=virtual runs " + std::to_string(virtual_ranks_) +
                       " ranks (--ranks)");
      world_ = virtual_ranks_;
    }
    check_benchmark_flags(*argc, argv, is_root() && !list_only_);
    profiler_range_requested();  // PKBENCH_PROFILER_RANGE (timing.h): bad input before anything runs
    deadline_scale();            // PKBENCH_DEADLINE_SCALE (device_runtime.h): the same
    // Each virtual rank's streams need their own hardware queues, or a spin-waiting kernel of
    // one rank holds back another rank's kernel queued behind it: with the default 8 queues,
    // 8 virtual ranks' collectives stalled on one H100 (each point timing out); 32 passed.
    if (mode_ == PeerMode::virt) {
      const char* c = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
      if (!c || std::atoi(c) < 32) setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 1);
    }
    if (!list_only_ && is_root()) check_output_path(csv_path_, "--csv");
  } catch (const ArgError& e) {
    err = e.what();
  }
  // Rank 0 alone checks the path: every rank must take the same exit.
  if (comm_->size() > 1 && comm_->any(!err.empty())) err = comm_->broadcast_string(err, 0);
  if (!err.empty()) return bad_input(err);
  return -1;
}

int StudyMain::bad_input(const std::string& msg) const {
  if (is_root()) return cli_.bad_input(msg);
  return kExitBadInput;
}

bool StudyMain::list_planned() const { return list_only_ && (!arch_.empty() || discover_topology().count() == 0); }

GpuInfo StudyMain::planned_gpu() const {
  const GpuInfo g = arch_.empty() ? reference_gpu() : arch_gpu(arch_);
  note(arch_.empty() ? "note: no GPU here; points planned for " + g.name : "note: points " + g.name);
  return g;
}

void StudyMain::note(const std::string& msg) const {
  if (is_root()) std::fprintf(stderr, "%s\n", msg.c_str());
}

int StudyMain::start() {
  // Every rank must see a GPU; the first reason any rank has is everyone's.
  Topology local = discover_topology();
  std::string why = local.count() == 0 ? local.no_gpu_reason : "";
  // Without this build's device code for a GPU nothing can run on it (the start gate is a
  // kernel too): the machine has no usable GPU for this binary, said with the reason.
  for (const GpuInfo& g : local.gpus)
    if (auto w = missing_feature(Feature::device_code, g); why.empty() && !w.empty())
      why = "GPU" + std::to_string(g.ordinal) + " (" + g.name + "): " + w;
  why = comm_->first_error(why);
  if (!why.empty()) {
    if (is_root()) std::fprintf(stderr, "%s: no GPU to measure (%s)\n", cli_.program().c_str(), why.c_str());
    return kExitNoGpu;
  }
  try {
    group_ = std::make_unique<PeerGroup>(*comm_, mode_, virtual_ranks_);
  } catch (const ArgError& e) {
    return bad_input(e.what());
  } catch (const std::exception& e) {
    fatal(std::string("setting up --peer-mode=") + peer_mode_name(mode_) + ": " + e.what());
  }
  if (is_root()) {
    std::fprintf(stderr, "%s", group_->topology().describe().c_str());
    std::fprintf(stderr, "peer mode %s, %d process(es)\n", group_->mode_name().c_str(), comm_->size());
    if (group_->is_virtual())
      std::fprintf(stderr,
                   "virtual ranks: %d ranks on GPU0, %d SMs each (green contexts); bandwidths are HBM, not NVLink\n",
                   group_->size(), group_->sm_budget(0));
  }
  return -1;
}

int StudyMain::run(const std::vector<std::string>& columns, PointResults& results) {
  run_round(columns, results, *group_);
  return end_rounds();
}

void StudyMain::enable_gpu_counts() {
  cli_.app()
      .add_option("--gpu-counts", gpu_counts_,
                  "run the points once per GPU count, each on the run's first K GPUs (ranks), into one CSV (column "
                  "gpus): all (2..N) or a comma list; default: every GPU of the run")
      ->capture_default_str();
}

std::vector<int> StudyMain::gpu_counts(int n) const {
  if (gpu_counts_.empty() || n < 2) return {n};
  std::vector<int> v;
  if (gpu_counts_ == "all") {
    for (int k = 2; k <= n; ++k) v.push_back(k);
    return v;
  }
  try {
    v = parse_int_list(gpu_counts_, n);
  } catch (const ArgError& e) {
    throw ArgError("--gpu-counts=" + gpu_counts_ + ": " + e.what());
  }
  for (int k : v)
    if (k < 2 || k > n)
      throw ArgError("--gpu-counts=" + gpu_counts_ + ": " + std::to_string(k) + " GPUs, but the run has " +
                     std::to_string(n) + " (a count is 2.." + std::to_string(n) + ")");
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

PeerGroup* StudyMain::group_of_first(int k) {
  sub_group_.reset();  // the last subset's memory and green contexts first, then its communicator
  sub_comm_.reset();
  if (k == group_->size()) return group_.get();
  try {
    if (mode_ == PeerMode::single) sub_group_ = std::make_unique<PeerGroup>(*comm_, mode_, 0, k);
    else if (mode_ == PeerMode::virt) sub_group_ = std::make_unique<PeerGroup>(*comm_, mode_, k);
    else {
      sub_comm_ = comm_->first_ranks(k);  // collective over the run
      if (sub_comm_) sub_group_ = std::make_unique<PeerGroup>(*sub_comm_, mode_);
    }
  } catch (const std::exception& e) {
    fatal("the group of the first " + std::to_string(k) + " GPUs: " + e.what());
  }
  return sub_group_.get();
}

int StudyMain::run_round(const std::vector<std::string>& columns, PointResults& results, PeerGroup& g) {
  try {
    int errors = 0;
    if (is_root()) {
      if (!csv_) {
        // Every study's rows say what each point cost beside what it measured (point_cost.h).
        std::vector<std::string> with_cost = columns;
        for (const auto& c : point_cost_columns())
          if (std::find(with_cost.begin(), with_cost.end(), c) == with_cost.end()) with_cost.push_back(c);
        csv_ = std::make_unique<TidyCsv>(csv_path_, with_cost);
        csv_->flush();  // header now: an interrupted run still leaves a valid file
        csv_meta_ = metadata_row(*group_);  // the run's GPUs, whichever subset a round ran on
      }
      if (&g != group_.get()) std::fprintf(stderr, "== the first %d of %d GPUs ==\n", g.size(), group_->size());
      TidyCsvReporter reporter(*csv_, results, csv_meta_,
                               // Under mpirun stdout is the launcher's pseudo-terminal: no colour there.
                               stdout_is_terminal() && !comm_->is_mpi() ? benchmark::ConsoleReporter::OO_Defaults
                                                    : benchmark::ConsoleReporter::OO_Tabular);
      benchmark::RunSpecifiedBenchmarks(&reporter);
      errors = reporter.errors();
      rows_ += reporter.rows();
      skipped_ += reporter.skipped();
    } else {
      NullReporter quiet;
      benchmark::RunSpecifiedBenchmarks(&quiet);
    }
    benchmark::ClearRegisteredBenchmarks();
    errors = static_cast<int>(g.comm().max(errors));
    errors_ += errors;
    return errors ? 1 : 0;
  } catch (const std::exception& e) {
    fatal(e.what());
  }
}

void StudyMain::round_done() {
  try {
    comm_->idle_barrier();
  } catch (const std::exception& e) {
    fatal(e.what());
  }
}

int StudyMain::end_rounds() {
  try {
    benchmark::Shutdown();
    const int errors = static_cast<int>(comm_->max(errors_));
    if (is_root())
      std::fprintf(stderr, "%s: %d rows (%d errors, %d skipped) -> %s\n", cli_.program().c_str(), rows_, errors,
                   skipped_, csv_path_.c_str());
    return errors ? 1 : 0;
  } catch (const std::exception& e) {
    fatal(e.what());
  }
}

int StudyMain::list_points(const std::vector<std::vector<ListedPoint>>& rounds, const std::vector<int>& counts) const {
  if (!is_root()) return 0;
  size_t total = 0, unestimated = 0;
  double ms = 0;
  std::string per_count;
  for (size_t r = 0; r < rounds.size(); ++r) {
    double round_ms = 0;
    if (rounds.size() > 1) std::printf("# %d GPUs\n", counts.at(r));
    for (const auto& p : rounds[r]) {
      std::printf("%s%s%s\n", p.label.c_str(), p.skipped.empty() ? "" : " skipped: ", p.skipped.c_str());
      if (!p.skipped.empty()) continue;
      round_ms += p.est_ms;
      unestimated += p.est_ms <= 0;
    }
    total += rounds[r].size();
    ms += round_ms;
    if (rounds.size() > 1)
      per_count += (per_count.empty() ? "" : ", ") + std::to_string(counts.at(r)) + " GPUs: " +
                   std::to_string(rounds[r].size()) + " points ~" + fmt_num(round_ms / 1e3, 3) + " s";
  }
  std::fprintf(stderr, "%s: plan: %zu points, about %s s%s%s%s\n", cli_.program().c_str(), total,
               fmt_num(ms / 1e3, 3).c_str(), per_count.empty() ? "" : (" (" + per_count + ")").c_str(),
               unestimated ? (", " + std::to_string(unestimated) + " points without an estimate").c_str() : "",
               " (estimate)");
  return 0;
}

int StudyMain::run_rounds(StudyPlan& plan) {
  std::vector<int> counts;
  try {
    plan.plan_run(*group_);
    counts = gpu_counts(group_->size());
  } catch (const ArgError& e) {
    return bad_input(e.what());
  } catch (const std::exception& e) {
    fatal(std::string("planning the run: ") + e.what());
  }
  std::vector<std::vector<ListedPoint>> listed;
  for (int k : counts) {
    PeerGroup* g = group_of_first(k);
    if (g) {
      std::vector<ListedPoint> points;
      try {
        points = plan.points(*g);
      } catch (const ArgError& e) {
        return bad_input(e.what());
      }
      if (list_only_) {
        listed.push_back(points);
      } else {
        PointResults results;
        try {
          plan.setup(*g, results);
        } catch (const ArgError& e) {
          return bad_input(e.what());
        } catch (const std::exception& e) {
          fatal(std::string("setup: ") + e.what());
        }
        try {
          plan.warm_up();
        } catch (const std::exception& e) {
          fatal(std::string("warm-up: ") + e.what());
        }
        run_round(plan.columns(), results, *g);
        plan.finish();
      }
    }
    round_done();
  }
  group_of_first(group_->size());  // the last subset goes before the run's group
  if (list_only_) return list_points(listed, counts);
  return end_rounds();
}

double planned_point_ms(const TimingOptions& t, double op_ms, double harness_ms) {
  const double sample_ms = std::max(t.target_sample_ms, op_ms);
  return t.gap_ms + t.warmup_ms + (t.samples + 1) * sample_ms + harness_ms;
}

int StudyMain::main(int argc, char** argv, StudyPlan& plan) {
  if (int rc = begin(&argc, argv); rc >= 0) return rc;
  try {
    plan.check_flags();
  } catch (const ArgError& e) {
    return bad_input(e.what());
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return kExitBadInput;
  if (list_planned()) {
    try {
      const GpuInfo g = planned_gpu();
      const std::vector<int> counts = gpu_counts(planned_world());
      std::vector<std::vector<ListedPoint>> rounds;
      for (int k : counts) {
        planning_world_ = k;
        rounds.push_back(plan.plan(g));
      }
      planning_world_ = 0;
      return list_points(rounds, counts);
    } catch (const ArgError& e) {
      return bad_input(e.what());
    }
  }
  if (int rc = start(); rc >= 0) return rc;
  return run_rounds(plan);
}

void register_point(const std::string& name, int iterations, std::function<void(benchmark::State&)> fn) {
  benchmark::RegisterBenchmark(name.c_str(), std::move(fn))
      ->UseManualTime()
      ->Iterations(iterations)
      ->Unit(benchmark::kMicrosecond);
}

void add_timing_flags(CLI::App& app, TimingOptions& t) {
  app.add_option("--samples", t.samples, "timed samples per point")->check(CLI::Range(1, 100000))->capture_default_str();
  app.add_option("--warmup-ms", t.warmup_ms, "warm-up per point")->check(CLI::Range(0.0, 1e6))->capture_default_str();
  app.add_option("--warmup-runs", t.warmup_runs, "warm-up runs of one operation per point at least (the samples' count from their median)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--target-sample-ms", t.target_sample_ms, "operations per sample are batched to last about this long")
      ->check(CLI::Range(1e-3, 1e5))
      ->capture_default_str();
  app.add_option("--gap-ms", t.gap_ms, "idle time between points")->check(CLI::Range(0.0, 1e5))->capture_default_str();
  app.add_option("--timeout-ms", t.timeout_ms, "limit for any spin-wait (a hang becomes an error)")
      ->check(CLI::Range(1e-3, 1e6))
      ->capture_default_str();
  app.add_option("--max-enqueued", t.max_enqueued, "calls queued behind the start gate at most")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
}

void add_timing_flags(CLI::App& app, TimingOptions& t, double& study_warmup_ms, const std::string& what) {
  add_timing_flags(app, t);
  app.add_option("--study-warmup-ms", study_warmup_ms, what + " before the first point")
      ->check(CLI::Range(0.0, 1e7))
      ->capture_default_str();
}

void StudyMain::fatal(const std::string& msg) {
  if (comm_ && comm_->size() > 1)
    std::fprintf(stderr, "%s: rank %d: fatal: %s\n", cli_.program().c_str(), comm_->rank(), msg.c_str());
  else
    std::fprintf(stderr, "%s: fatal: %s\n", cli_.program().c_str(), msg.c_str());
  std::fflush(stderr);
  if (comm_) comm_->abort(1);
  std::exit(1);
}

}  // namespace pk
