// The generic CSV reader: columns by name from the studies' declarations, typed cells,
// and every malformed or foreign file refused with file, line and field named.
#include <gtest/gtest.h>

#include <fstream>

#include "microbench/harness/point_cost.h"
#include "microbench/collectives/coll_schema.h"
#include "microbench/harness/csv_table.h"
#include "microbench/fused/fused_analysis.h"
#include "sweeps/study_schema.h"
#include "microbench/sync/sync_analysis.h"
#include "microbench/transfer/transfer_analysis.h"
#include "tests/cpu/sweeps_test_util.h"

using namespace pk;
using namespace pk::sweeps;
using namespace pk::fused;
using namespace pk::coll;
using namespace pk::sync;
using namespace pk::transfer;
using namespace pk::sweeps::testing;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

const std::vector<std::string>& tcols() { return pk::transfer::transfer_columns(); }

}  // namespace

TEST(SweepsReader, StudiesRegisterTheirOwnColumns) {
  const StudySchema* t = find_study("transfer");
  ASSERT_NE(t, nullptr);
  ASSERT_TRUE(t->built());
  // The declaration itself (metadata included), the point-cost columns appended as the binary appends them.
  std::vector<std::string> want = pk::transfer::transfer_columns();
  for (const auto& c : pk::point_cost_columns()) want.push_back(c);
  EXPECT_EQ(t->columns, want);
  for (const auto& k : pk::transfer::all_knobs()) EXPECT_TRUE(t->declares(k.name)) << k.name;
  const StudySchema* s = find_study("sync");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->declares("one_way_ns"));
  EXPECT_TRUE(s->declares("ranks"));  // metadata appended where a declaration leaves it out
  // The collectives study's check is on (pkbench_coll_schema), its retired columns accepted.
  const StudySchema* c = find_study("collectives");
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->built()) << c->not_built;
  for (const auto& col : pk::coll::coll_columns()) EXPECT_TRUE(c->declares(col)) << col;
  EXPECT_TRUE(c->declares("nccl_algo"));
  EXPECT_FALSE(c->declares("gbps"));
  EXPECT_EQ(find_study("warp_drive"), nullptr);
}

// The collectives check is on: a column the study does not declare is refused, naming it;
// the retired ones older files carry are read.
TEST(SweepsReader, CollectivesColumnsCheckedAgainstTheStudy) {
  const std::string dir = temp_dir("coll_schema");
  write(dir + "/foreign.csv", "study,collective,gbps\ncollectives,all_reduce,1\n");
  EXPECT_NE(error_of([&] { CsvTable::read(dir + "/foreign.csv", {{"collective"}}, checked_as("collectives")); })
                .find("column 'gbps': not a column of the collectives study"),
            std::string::npos);
  write(dir + "/retired.csv", "study,collective,nccl_algo\ncollectives,all_reduce,Ring\n");
  EXPECT_EQ(CsvTable::read(dir + "/retired.csv", {{"collective"}}, checked_as("collectives")).rows(), 1u);
}

TEST(SweepsReader, ReadsTypedColumnsByName) {
  const std::string dir = temp_dir("typed");
  write(dir + "/t.csv", csv(tcols(), {transfer_row({{"mechanism", "ce"}, {"message_bytes", "1024"}, {"gbps", "1.5"}}),
                                      transfer_row({{"mechanism", "tma_bulk"}, {"message_bytes", "2048"},
                                                    {"sms", "8"}, {"gbps", "300"}})}));
  const CsvTable t = CsvTable::read(dir + "/t.csv",
                                    {{"mechanism"}, {"message_bytes", ColumnType::integer}, {"gbps", ColumnType::number},
                                     {"sms", ColumnType::integer}},
                                    checked_as("transfer"));
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.study(), "transfer");
  EXPECT_EQ(t.machine().key(), "h200x2");
  EXPECT_EQ(t.text(1, "mechanism"), "tma_bulk");
  EXPECT_EQ(t.integer(1, "message_bytes"), 2048);
  EXPECT_DOUBLE_EQ(t.number(0, "gbps"), 1.5);
  EXPECT_TRUE(t.empty(0, "sms"));
  EXPECT_EQ(t.integer(0, "sms", -1), -1);
  EXPECT_EQ(t.line_of(1), 3u);
  EXPECT_THROW(t.text(0, "pattern"), std::logic_error);  // not declared when read
}

TEST(SweepsReader, OlderFilesWithoutNewerColumnsStillRead) {
  // H200x2's transfer/transfer.csv (copied as tests/fixtures/compare/old/) predates the `ranks` column.
  const TransferData d = read_transfer(fixture("compare/old/transfer.csv"));
  EXPECT_EQ(d.total, 941u);
  EXPECT_EQ(d.rows.size(), 937u);
  EXPECT_EQ(d.skipped, 4u);
  EXPECT_EQ(d.machine.key(), "h200x2");
  EXPECT_EQ(d.git_commit, "d12113004164");
}

TEST(SweepsReader, FusedFilesWithTheRetiredVerdictColumnsStillRead) {
  const StudySchema* f = find_study("fused");
  ASSERT_NE(f, nullptr);
  if (!f->built()) GTEST_SKIP() << f->not_built;
  // Fused CSVs written before the verdicts moved to the sweeps carry per-row speedups and a
  // best baseline: read, ignored (the sweeps compute their own from the rows).
  std::ifstream in(fixture("fused_fixture.csv"));
  std::string line, text;
  std::getline(in, line);
  text = line + ",speedup_vs_best_baseline,best_baseline\n";
  while (std::getline(in, line))
    if (!line.empty()) text += line + ",9.99,pk_then_coll\n";
  const std::string dir = temp_dir("fused_retired");
  write(dir + "/f.csv", text);
  const FusedSummary old = fused_summary(dir + "/f.csv"), now = fused_summary(fixture("fused_fixture.csv"));
  ASSERT_EQ(old.shapes.size(), now.shapes.size());
  ASSERT_FALSE(now.shapes.empty());
  for (size_t i = 0; i < now.shapes.size(); ++i) {
    EXPECT_EQ(old.shapes[i].best_baseline(), now.shapes[i].best_baseline());
    EXPECT_EQ(old.shapes[i].best_baseline_us(), now.shapes[i].best_baseline_us());
  }
  // A column no version of the study wrote is still foreign.
  std::ifstream again(fixture("fused_fixture.csv"));
  std::getline(again, line);
  text = line + ",speedup_vs_warp\n";
  while (std::getline(again, line))
    if (!line.empty()) text += line + ",1\n";
  write(dir + "/g.csv", text);
  EXPECT_NE(error_of([&] { fused_summary(dir + "/g.csv"); }).find("column 'speedup_vs_warp': not a column of the fused study"),
            std::string::npos);
}

TEST(SweepsReader, BadNumberNamesFileLineAndField) {
  const std::string dir = temp_dir("badnum");
  write(dir + "/t.csv", csv(tcols(), {transfer_row({{"mechanism", "ce"}, {"message_bytes", "16"}, {"gbps", "1"}}),
                                      transfer_row({{"mechanism", "ce"}, {"message_bytes", "32"}, {"gbps", "fast"}})}));
  const size_t field = std::find(tcols().begin(), tcols().end(), "gbps") - tcols().begin() + 1;
  const std::string e = error_of([&] { read_transfer(dir + "/t.csv"); });
  EXPECT_NE(e.find(dir + "/t.csv:3:" + std::to_string(field) + ": column 'gbps': 'fast' is not a number"),
            std::string::npos)
      << e;
  write(dir + "/u.csv", csv(tcols(), {transfer_row({{"mechanism", "ce"}, {"message_bytes", "16.5"}, {"gbps", "1"}})}));
  EXPECT_NE(error_of([&] { read_transfer(dir + "/u.csv"); }).find("column 'message_bytes': '16.5' is not an integer"),
            std::string::npos);
}

TEST(SweepsReader, MissingColumnIsNamed) {
  const std::string dir = temp_dir("missing");
  std::vector<std::string> cols;
  for (const auto& c : tcols())
    if (c != "gbps") cols.push_back(c);
  write(dir + "/t.csv", csv(cols, {transfer_row({{"mechanism", "ce"}, {"message_bytes", "16"}})}));
  const std::string e = error_of([&] { read_transfer(dir + "/t.csv"); });
  EXPECT_NE(e.find(dir + "/t.csv:1: missing column 'gbps' (the transfer study declares it"), std::string::npos) << e;
}

TEST(SweepsReader, ForeignFilesAreRefused) {
  // A sync CSV given to the transfer reader: refused at the first row's study column.
  const std::string sync = fixture("sync_fixture.csv");
  std::string e = error_of([&] { read_transfer(sync); });
  EXPECT_NE(e.find(sync + ":2:1: column 'study': 'sync', expected 'transfer'"), std::string::npos) << e;
  // A transfer CSV with a column the transfer study never declared.
  const std::string dir = temp_dir("foreign");
  std::vector<std::string> cols = tcols();
  cols.push_back("level");
  write(dir + "/t.csv", csv(cols, {transfer_row({{"mechanism", "ce"}, {"message_bytes", "16"}, {"gbps", "1"}})}));
  e = error_of([&] { read_transfer(dir + "/t.csv"); });
  EXPECT_NE(e.find(dir + "/t.csv:1:" + std::to_string(cols.size()) + ": column 'level': not a column of the transfer study"),
            std::string::npos)
      << e;
  // Not a pkbench CSV at all.
  write(dir + "/q.csv", "\"a\",b\n1,2\n");
  EXPECT_NE(error_of([&] { read_transfer(dir + "/q.csv"); }).find(":1:1: quoted header field"), std::string::npos);
  write(dir + "/e.csv", "");
  EXPECT_NE(error_of([&] { read_transfer(dir + "/e.csv"); }).find("empty file"), std::string::npos);
  EXPECT_NE(error_of([&] { read_transfer(dir + "/none.csv"); }).find("none.csv"), std::string::npos);
}

TEST(SweepsReader, RowsOfTwoMachinesOrGpuCountsAreRefused) {
  const std::string dir = temp_dir("machines");
  const auto field = [](const char* c) {
    return std::to_string(std::find(tcols().begin(), tcols().end(), c) - tcols().begin() + 1);
  };
  write(dir + "/count.csv",
        csv(tcols(), {transfer_row({{"mechanism", "ce"}, {"message_bytes", "16"}, {"gbps", "1"}}),
                      transfer_row({{"mechanism", "ce"}, {"message_bytes", "32"}, {"gbps", "1"}, {"gpu_count", "4"}})}));
  std::string e = error_of([&] { read_transfer(dir + "/count.csv"); });
  EXPECT_NE(e.find(dir + "/count.csv:3:" + field("gpu_count") + ": column 'gpu_count': '4' but line 2 has '2'"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("two machines or GPU counts"), std::string::npos);
  write(dir + "/name.csv",
        csv(tcols(), {transfer_row({{"mechanism", "ce"}, {"message_bytes", "16"}, {"gbps", "1"}}),
                      transfer_row({{"mechanism", "ce"}, {"message_bytes", "32"}, {"gbps", "1"},
                                    {"gpu_name", "NVIDIA H100 80GB HBM3"}})}));
  e = error_of([&] { read_transfer(dir + "/name.csv"); });
  EXPECT_NE(e.find(":3:" + field("gpu_name") + ": column 'gpu_name'"), std::string::npos) << e;
  write(dir + "/host.csv",
        csv(tcols(), {transfer_row({{"mechanism", "ce"}, {"message_bytes", "16"}, {"gbps", "1"}}),
                      transfer_row({{"mechanism", "ce"}, {"message_bytes", "32"}, {"gbps", "1"}, {"host", "node2"}})}));
  EXPECT_NE(error_of([&] { read_transfer(dir + "/host.csv"); }).find("column 'host': 'node2' but line 2 has 'node1'"),
            std::string::npos);
}

TEST(SweepsReader, FieldCountMismatchIsNamed) {
  const std::string dir = temp_dir("fields");
  std::string text = csv(tcols(), {transfer_row({{"mechanism", "ce"}, {"message_bytes", "16"}, {"gbps", "1"}})});
  text += "transfer,fig2,ce\n";
  write(dir + "/t.csv", text);
  const std::string e = error_of([&] { read_transfer(dir + "/t.csv"); });
  EXPECT_NE(e.find(dir + "/t.csv:3: 3 fields, the header has " + std::to_string(tcols().size())), std::string::npos) << e;
}

// A 2 MB line (no newline in it, as in a file that is not a study CSV) is refused with the file
// and line, as bad input (exit 2), without reading it into one string per field.
TEST(SweepsReader, OverlongLineIsRefusedWithFileAndLine) {
  const std::string dir = temp_dir("longline");
  std::string text = csv(tcols(), {transfer_row({{"mechanism", "ce"}, {"message_bytes", "16"}, {"gbps", "1"}})});
  text += std::string(2u << 20, 'x') + "\n";
  write(dir + "/t.csv", text);
  write(dir + "/one.csv", std::string(2u << 20, 'y'));  // one line, no end
  for (const auto& [file, line] : {std::pair<std::string, int>{"t.csv", 3}, {"one.csv", 1}}) {
    try {
      read_transfer(dir + "/" + file);
      ADD_FAILURE() << file << ": a 2 MB line was accepted";
    } catch (const pk::CsvError& e) {
      EXPECT_NE(std::string(e.what()).find(dir + "/" + file + ":" + std::to_string(line) + ": line longer than 1024 KiB"),
                std::string::npos)
          << e.what();
      EXPECT_EQ(pk::exit_code_of(e), 2);
    }
  }
}

TEST(SweepsReader, SyncReaderUsesTheSameChecks) {
  const SyncData d = read_sync(fixture("sync_fixture.csv"));
  EXPECT_EQ(d.rows.size(), 9u);
  EXPECT_EQ(d.machine.gpu_count, 2);
  const std::string e = error_of([&] { read_sync(fixture("transfer_fixture.csv")); });
  EXPECT_NE(e.find("'transfer', expected 'sync'"), std::string::npos) << e;
}

TEST(SweepsReader, PeekNamesTheStudy) {
  EXPECT_EQ(peek_csv(fixture("sync_fixture.csv")).study, "sync");
  EXPECT_EQ(peek_csv(fixture("collectives_fixture.csv")).study, "collectives");
  EXPECT_EQ(machine_key("NVIDIA H100 80GB HBM3", 1), "h100x1");
  EXPECT_EQ(machine_key("NVIDIA B200", 8), "b200x8");
}
