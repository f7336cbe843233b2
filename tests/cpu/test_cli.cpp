// The study binaries' command-line plumbing: CLI11 parsing with Google Benchmark's flags
// passed through, bad flags refused with exit 2 naming the flag, output paths checked up
// front, and console output without colour codes when it is not a terminal.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "microbench/harness/cli.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/gbench_csv.h"

namespace fs = std::filesystem;
using namespace pk;

namespace {

struct Argv {
  std::vector<std::string> s;
  std::vector<char*> p;
  int argc = 0;
  explicit Argv(std::vector<std::string> a) : s(std::move(a)) {
    for (auto& x : s) p.push_back(x.data());
    p.push_back(nullptr);
    argc = static_cast<int>(s.size());
  }
};

}  // namespace

TEST(Cli, PassesBenchmarkFlagsThroughAndParsesTheRest) {
  Cli cli("prog", "test");
  int samples = 7;
  std::string sizes;
  cli.app().add_option("--samples", samples)->check(CLI::Range(1, 100));
  cli.app().add_option("--sizes", sizes)->check(size_list_validator());
  Argv a({"prog", "--samples=9", "--benchmark_filter=tma", "--sizes", "4K,1M", "--benchmark_min_time=1"});
  EXPECT_EQ(cli.parse(&a.argc, a.p.data(), true), -1);
  EXPECT_EQ(samples, 9);
  EXPECT_EQ(sizes, "4K,1M");
  ASSERT_EQ(a.argc, 3);
  EXPECT_STREQ(a.p[1], "--benchmark_filter=tma");
  EXPECT_STREQ(a.p[2], "--benchmark_min_time=1");
}

TEST(Cli, BadFlagsExitTwo) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"prog", "--no-such-flag=1"}, {"prog", "--samples=-3"}, {"prog", "--samples=0"},
        {"prog", "--samples"}, {"prog", "--sizes=4Q"}, {"prog", "stray"}}) {
    Cli cli("prog", "test");
    int samples = 7;
    std::string sizes;
    cli.app().add_option("--samples", samples)->check(CLI::Range(1, 100));
    cli.app().add_option("--sizes", sizes)->check(size_list_validator());
    Argv a(bad);
    EXPECT_EQ(cli.parse(&a.argc, a.p.data(), true), kExitBadInput) << bad[1];
  }
  Cli help("prog", "test");
  Argv h({"prog", "--help"});
  testing::internal::CaptureStdout();
  EXPECT_EQ(help.parse(&h.argc, h.p.data()), 0);
  EXPECT_NE(testing::internal::GetCapturedStdout().find("Usage"), std::string::npos);
}

TEST(Cli, OutputPathIsCheckedBeforeAnythingRuns) {
  EXPECT_THROW(check_output_path("/nonexistent/dir/x.csv", "--csv"), ArgError);
  try {
    check_output_path("/nonexistent/dir/x.csv", "--csv");
  } catch (const ArgError& e) {
    EXPECT_NE(std::string(e.what()).find("--csv"), std::string::npos);
  }
  const std::string ok = (fs::temp_directory_path() / "pkbench_cli_probe.csv").string();
  EXPECT_NO_THROW(check_output_path(ok, "--csv"));
  EXPECT_FALSE(fs::exists(ok));  // the probe leaves nothing behind
}

TEST(Cli, ConsoleWithoutColourWritesPlainText) {
  const std::string path = (fs::temp_directory_path() / "pkbench_cli_plain.csv").string();
  TidyCsv csv(path, {"status", "error"});
  PointResults results;
  TidyCsvReporter plain(csv, results, {}, benchmark::ConsoleReporter::OO_Tabular);
  std::ostringstream out, err;
  plain.SetOutputStream(&out);
  plain.SetErrorStream(&err);
  benchmark::BenchmarkReporter::Run r;
  r.run_name.function_name = "point";
  r.run_type = benchmark::BenchmarkReporter::Run::RT_Iteration;
  r.iterations = 1;
  r.real_accumulated_time = 1e-6;
  results.put("point", {{"status", "ok"}});
  plain.ReportRuns({r});
  EXPECT_NE(out.str().find("point"), std::string::npos);
  EXPECT_EQ(out.str().find('\x1b'), std::string::npos) << "ANSI escape in plain output";
  fs::remove(path);
}

// NaN passes every CLI11 Range (each comparison is false): refused by name instead.
TEST(Cli, RefusesNonFiniteValuesOfAnyFlag) {
  for (const char* v : {"nan", "NaN", "-nan", "inf", "+Infinity"}) {
    Cli cli("prog", "test");
    double ms = 1;
    cli.app().add_option("--warmup-ms", ms)->check(CLI::Range(0.0, 1e6));
    Argv a({"prog", std::string("--warmup-ms=") + v});
    EXPECT_EQ(cli.parse(&a.argc, a.p.data(), true), kExitBadInput) << v;
  }
  Cli cli("prog", "test");
  double ms = 1;
  cli.app().add_option("--warmup-ms", ms);
  Argv a({"prog", "--warmup-ms=2.5"});
  EXPECT_EQ(cli.parse(&a.argc, a.p.data(), true), -1);
  EXPECT_EQ(ms, 2.5);
}

// A text value that merely begins like "inf" or "nan" is a name, not a number.
TEST(Cli, TextValuesStartingLikeInfOrNanAreNotNumbers) {
  for (const char* v : {"info.csv", "inference.csv", "nano/x.csv"}) {
    Cli cli("prog", "test");
    std::string csv;
    cli.app().add_option("--csv", csv);
    Argv a({"prog", std::string("--csv=") + v});
    EXPECT_EQ(cli.parse(&a.argc, a.p.data(), true), -1) << v;
    EXPECT_EQ(csv, v);
  }
}

TEST(Cli, RefusesAFolderAsTheOutputFile) {
  const fs::path d = fs::temp_directory_path() / "pkbench_cli_test_folder";
  fs::create_directories(d);
  EXPECT_THROW(check_output_path(d.string(), "--csv"), ArgError);
  EXPECT_THROW(check_output_path(d.string() + "/", "--csv"), ArgError);
  EXPECT_NO_THROW(check_output_path((d / "x.csv").string(), "--csv"));
  fs::remove_all(d);
}
