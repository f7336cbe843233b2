#pragma once
// The life of a study binary, the same for every study and in every peer mode:
//   begin()  MPI (when started by mpirun), the command line (CLI11; errors exit 2 before
//            anything runs, printed once), the output path checked;
//   start()  the GPUs (none: exit 3), the PeerGroup of the chosen --peer-mode;
//   run()    the registered Google Benchmarks. Every rank runs every point with the same
//            iteration counts; rank 0 reports (console + tidy CSV), the others use a null
//            reporter. A fatal error on any rank ends every rank with its message.
// main() is the whole life in that order around a study's StudyPlan: a study's main() is
// its StudyMain, its plan (which adds its flags) and one call.
#include <benchmark/benchmark.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "microbench/harness/args.h"
#include "microbench/harness/cli.h"
#include "microbench/harness/comm.h"
#include "microbench/harness/gbench_csv.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/point_cost.h"
#include "microbench/harness/topology.h"
#include "microbench/harness/timing.h"

namespace pk {

// Registers one point: manual time (the study sets each iteration's time from CUDA events),
// exactly `iterations` iterations on every rank, microseconds on the console.
void register_point(const std::string& name, int iterations, std::function<void(benchmark::State&)> fn);

// A point as --list prints it: its label and, on a GPU that lacks what it needs, why it
// would be skipped ("" runs).
struct ListedPoint {
  std::string label, skipped;
  double est_ms = 0;  // the wall time the point is planned to take (--list's estimate; 0: none given)
};

// What --list estimates a gated point (timing.h) costs: the gap, the per-point warm-up,
// calibration (about one sample) and the samples, each sample at least one operation of
// op_ms, plus what the harness itself spends per point (setup, poison, the verified run).
inline constexpr double kPlannedHarnessMs = 10;
double planned_point_ms(const TimingOptions& t, double op_ms, double harness_ms = kPlannedHarnessMs);

// What one study adds to the life cycle; StudyMain::main() calls these in this order.
// ArgError from any of them is bad input (exit 2); other exceptions from setup() and
// warm_up() are fatal.
class StudyPlan {
 public:
  virtual ~StudyPlan() = default;
  // After the command line is parsed: the flag checks that need no GPU.
  virtual void check_flags() {}
  // --list without this machine's GPU (--arch, or none here): the points for g.
  virtual std::vector<ListedPoint> plan(const GpuInfo& g) = 0;
  // After the GPUs are up, on every rank and before the first round (points() and setup()
  // come per round, on that round's ranks only), with the run's own group: for a study that
  // plans every round of a GPU-count sweep at once, so that a refusal (ArgError) comes before
  // any round runs and on every rank alike (the collectives: a tuning table answers for the
  // run's GPUs). Other exceptions are fatal.
  virtual void plan_run(PeerGroup& /*group*/) {}
  // After the GPUs are up: this run's points (for --list, or to set up and run).
  virtual std::vector<ListedPoint> points(PeerGroup& group) = 0;
  // The study's state built and its points registered (register_point), results into `results`.
  virtual void setup(PeerGroup& group, PointResults& results) = 0;
  virtual void warm_up() {}
  virtual std::vector<std::string> columns() const = 0;
  // After the run, before the peer group goes (collective teardown).
  virtual void finish() = 0;
};

// A plan whose points each run as one registered benchmark of its Study, which is built in
// setup() and torn down (collectively, before the peer group goes) in finish():
// Study::run_point(benchmark::State&, const Point&).
template <class Point, class Study>
class PointStudyPlan : public StudyPlan {
 public:
  void finish() override { st_.reset(); }

 protected:
  // Takes the study built for this run's points_ and registers one benchmark per point.
  void run_points(std::unique_ptr<Study> st, int iterations) {
    st_ = std::move(st);
    for (const auto& p : points_)
      register_point(p.name(), iterations, [this, p](benchmark::State& s) { st_->run_point(s, p); });
  }
  std::vector<Point> points_;
  std::unique_ptr<Study> st_;
};

// The Study of a PointStudyPlan that is a Context built for the run's points and a Runner on it
// (Runner::run(benchmark::State&, const Point&) measures and stores one point).
template <class Context, class Runner>
class ContextRunnerStudy {
 public:
  template <class Options, class Points>
  ContextRunnerStudy(PeerGroup& g, PointResults& r, const Options& o, const Points& points)
      : ctx_(g, o, points), runner_(ctx_, r) {}
  template <class Point>
  void run_point(benchmark::State& state, const Point& p) {
    runner_.run(state, p);
  }

 private:
  Context ctx_;
  Runner runner_;
};

class StudyMain {
 public:
  StudyMain(std::string program, std::string description, std::string default_csv);
  ~StudyMain();
  Cli& cli() { return cli_; }

  // Returns -1 to go on, else the exit code.
  int begin(int* argc, char** argv);
  // After the study's own flag checks that need no GPU. Returns -1 to go on, else the exit
  // code (kExitNoGpu with the reason when this machine has no usable GPU).
  int start();
  // Runs every registered benchmark; returns the exit code (1 if any point failed).
  int run(const std::vector<std::string>& columns, PointResults& results);
  // A GPU-count sweep (--gpu-counts, for the studies that call enable_gpu_counts() before
  // begin()): one round per count k, each on the group of the run's first k GPUs (ranks),
  // every round's rows into the one CSV (its metadata says the run's GPUs; the study's own
  // `gpus` column says who took part). run_round() runs the benchmarks registered for one
  // round on `g` (rank 0 of the run is in every subset) and clears them; the ranks outside a
  // round wait in round_done(), asleep; end_rounds() gives the run's exit code.
  void enable_gpu_counts();
  std::vector<int> gpu_counts(int n) const;  // the counts of a run of n GPUs, ascending; ArgError
  // Collective over the run: the group of its first k GPUs (the run's own group for k = all),
  // nullptr on the ranks outside it. Valid until the next call.
  PeerGroup* group_of_first(int k);
  int run_round(const std::vector<std::string>& columns, PointResults& results, PeerGroup& g);
  void round_done();
  int end_rounds();
  // --list's plans: the points and their estimated wall time, "" (and 0 ms) for none; printed
  // by list_points() with a summary line on stderr ("N points, about S s").
  int list_points(const std::vector<std::vector<ListedPoint>>& rounds, const std::vector<int>& counts) const;
  // The whole life of a study binary around `plan`; returns main's exit code.
  int main(int argc, char** argv, StudyPlan& plan);

  Comm& comm() { return *comm_; }
  PeerGroup& group() { return *group_; }
  bool is_root() const { return comm_->rank() == 0; }
  bool list_only() const { return list_only_; }
  const std::string& csv_path() const { return csv_path_; }
  // --list planned without this machine's GPU: --arch was given, or there is no GPU here.
  // planned_gpu() is then --arch's stand-in, else the reference Hopper (a note says which).
  bool list_planned() const;
  GpuInfo planned_gpu() const;
  // The GPU count a planned --list is for: --world, else 2. While a planned GPU-count sweep
  // is listed, the round's count.
  int planned_world() const { return planning_world_ > 0 ? planning_world_ : (world_ > 0 ? world_ : 2); }
  int world_hint() const { return world_; }  // --world as given (0: none)
  // The GPUs of the whole run (planned: --world, else 2), whichever round is running: a round
  // on fewer is a partial one of a GPU-count sweep.
  int run_gpus() const { return group_ ? group_->size() : (world_ > 0 ? world_ : 2); }
  PeerMode peer_mode() const { return mode_; }
  // A message on stderr from rank 0 only.
  void note(const std::string& msg) const;
  // Prints "<program>: [rank R: ]fatal: msg" and ends every rank with exit code 1.
  [[noreturn]] void fatal(const std::string& msg);
  // Prints a bad-input error once and returns kExitBadInput (for checks after begin()).
  int bad_input(const std::string& msg) const;

 private:
  Cli cli_;
  std::string csv_path_, mode_text_, arch_;
  bool list_only_ = false;
  PeerMode mode_ = PeerMode::single;
  int virtual_ranks_ = 0;
  int world_ = 0, planning_world_ = 0;
  std::string gpu_counts_;
  std::unique_ptr<Comm> comm_;
  std::unique_ptr<PeerGroup> group_;
  // A GPU-count sweep's current subset (its communicator first: the group uses it).
  std::unique_ptr<Comm> sub_comm_;
  std::unique_ptr<PeerGroup> sub_group_;
  std::unique_ptr<TidyCsv> csv_;  // rank 0: every round's rows
  Row csv_meta_;
  int errors_ = 0, rows_ = 0, skipped_ = 0;
  int run_rounds(StudyPlan& plan);
};

// A study binary's main(): its StudyMain, its plan (which adds its flags), the life cycle.
template <class Plan>
int study_main(int argc, char** argv, std::string program, std::string description, std::string default_csv) {
  StudyMain study(std::move(program), std::move(description), std::move(default_csv));
  Plan plan(study);
  return study.main(argc, argv, plan);
}

// Every study binary's main() (one line at the end of its <study>_bench.cu): its plan (a
// StudyPlan built from the StudyMain), its name, the description --help prints, its default CSV.
#define PK_STUDY_MAIN(Plan, program, description, default_csv) \
  int main(int argc, char** argv) { return pk::study_main<Plan>(argc, argv, program, description, default_csv); }

// What a gated study's measurements share: its peer group and topology, where its rows go,
// the start gate, the status board kernels report through, and the streams.
struct GatedRig {
  GatedRig(PeerGroup& g, PointResults& r)
      : group_(g), topo_(g.topology()), results_(r), gate_(g), status_(g), streams_(g) {}
  PeerGroup& group_;
  const Topology& topo_;
  PointResults& results_;
  Gate gate_;
  StatusBoard status_;
  StreamPool streams_;
};


// A study binary's --preset NAME: which of `presets` (rows with a name and a help, each listed in --help) gives
// the grid's fields the flags leave out.
template <class Preset>
CLI::Option* add_preset_option(CLI::App& app, std::string& name, const std::vector<Preset>& presets) {
  return app.add_option("--preset", name, "what to run where the flags below leave it out:" + preset_lines(presets))
      ->capture_default_str();
}

// The flags of the timing method every gated study shares (--samples, --warmup-ms,
// --target-sample-ms, --gap-ms, --timeout-ms, --max-enqueued), with their checks.
void add_timing_flags(CLI::App& app, TimingOptions& t);
// The same and --study-warmup-ms (`what` runs before the first point, this long).
void add_timing_flags(CLI::App& app, TimingOptions& t, double& study_warmup_ms, const std::string& what);

// Console reporting off (ranks other than 0); the point's cost accumulator cleared as rank 0's
// reporter clears it.
class NullReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override { point_cost::take(); }
};

}  // namespace pk
