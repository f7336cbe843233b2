// PyTorch as a reference tool: ref_torch.py's CSV read back and merged into the fused and
// collectives CSVs (microbench/fused/torch_ref.h), on the committed fixtures.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "microbench/fused/torch_ref.h"

using namespace pk::fused;
namespace fs = std::filesystem;

namespace {

const char* kHeader =
    "tool,torch_version,op,impl,launch_mode,gpus,size_n,m,n,k,bytes,dtype,iters,samples,time_us_median,time_us_min,"
    "time_us_max,max_rel_err,rel_fro_err,verified,status,error\n";

std::string temp_file(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("pk_torch_ref_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p) << text;
  return p.string();
}

std::string copy_fixture(const std::string& name) {
  const fs::path to = fs::temp_directory_path() / ("pk_torch_ref_" + std::to_string(::getpid()) + "_" + name);
  fs::copy_file(fs::path(PKBENCH_FIXTURE_DIR) / name, to, fs::copy_options::overwrite_existing);
  return to.string();
}

// The fixtures' shapes (2 GPUs): gemm_rs 8192x8192x1024, ag_gemm 8192x1024x8192; all-reduce 64 KiB.
std::string torch_csv() {
  return temp_file("torch.csv", std::string(kHeader) +
      "pytorch,2.11.0,gemm_rs,fused_matmul_reduce_scatter,eager,2,8192,8192,8192,1024,,bf16,10,5,900,890,950,0.01,0.003,1,ok,\n"
      "pytorch,2.11.0,gemm_rs,matmul_then_reduce_scatter,eager,2,8192,8192,8192,1024,,bf16,10,5,1500,1490,1510,0.01,0.003,1,ok,\n"
      "pytorch,2.11.0,ag_gemm,fused_all_gather_matmul,eager,2,8192,8192,1024,8192,,bf16,,,,,,,,,error,RuntimeError: x\n"
      "pytorch,2.11.0,all_reduce,one_shot_all_reduce,eager,2,,,,,65536,bf16,100,5,10,9.5,11,0.001,0.001,1,ok,\n"
      "pytorch,2.11.0,all_reduce,two_shot_all_reduce_,graph,2,,,,,1048576,bf16,100,5,25,24,26,0.001,0.001,1,ok,\n"
      "pytorch,2.11.0,all_reduce,one_shot_all_reduce,eager,2,,,,,1048576,bf16,,,,,,,,,skipped,no\n");
}

const std::map<std::string, std::string>* find_row(const TextCsv& c, const std::string& key_col, const std::string& key,
                                                   const std::string& impl, const std::string& extra_col = "",
                                                   const std::string& extra = "") {
  for (const auto& r : c.rows)
    if (r.at(key_col) == key && r.at("impl") == impl && (extra_col.empty() || r.at(extra_col) == extra)) return &r;
  return nullptr;
}

}  // namespace

TEST(TorchRef, ReadsOnlyTheOkRows) {
  const auto rows = read_torch_csv(torch_csv());
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].tool(), "pytorch 2.11.0 fused_matmul_reduce_scatter");
  EXPECT_EQ(rows[0].m, 8192);
  EXPECT_EQ(rows[0].k, 1024);
  EXPECT_DOUBLE_EQ(rows[2].time_us, 10);
  EXPECT_EQ(rows[2].bytes, 65536);
}

TEST(TorchRef, RefusesWhatIsNotTheDriversCsv) {
  EXPECT_THROW(read_torch_csv(temp_file("bad_header.csv", "a,b\n1,2\n")), std::runtime_error);
  EXPECT_THROW(read_torch_csv(temp_file("bad_tool.csv", std::string(kHeader) +
      "nccl-tests,2.11.0,all_reduce,one_shot_all_reduce,eager,2,,,,,65536,bf16,1,1,10,10,10,0,0,1,ok,\n")),
               std::runtime_error);
  EXPECT_THROW(read_torch_csv(temp_file("bad_time.csv", std::string(kHeader) +
      "pytorch,2.11.0,all_reduce,one_shot_all_reduce,eager,2,,,,,65536,bf16,1,1,fast,10,10,0,0,1,ok,\n")),
               std::runtime_error);
}

TEST(TorchRef, CounterpartsAreDeclaredOnce) {
  EXPECT_EQ(torch_counterpart_fused("gemm_rs", "inter_sm", "inter_sm"), "fused_matmul_reduce_scatter");
  EXPECT_EQ(torch_counterpart_fused("gemm_rs", "cublas_nccl", "baseline"), "matmul_then_reduce_scatter");
  EXPECT_EQ(torch_counterpart_fused("ag_gemm", "ce_overlap", "baseline"), "fused_all_gather_matmul");
  EXPECT_EQ(torch_counterpart_fused("ag_gemm", "cublas_nccl", "baseline"), "all_gather_then_matmul");
  EXPECT_EQ(torch_counterpart_fused("gemm_rs", "gemm_pk", "component"), "");
  EXPECT_EQ(torch_counterpart_fused("gemm_ar", "inter_sm", "inter_sm"), "");
  EXPECT_EQ(torch_counterpart_collective("all_reduce", "one_shot"), "one_shot_all_reduce");
  EXPECT_EQ(torch_counterpart_collective("all_reduce", "one_shot_pdl"), "one_shot_all_reduce");
  EXPECT_EQ(torch_counterpart_collective("all_reduce", "two_shot_push"), "two_shot_all_reduce_");
  EXPECT_EQ(torch_counterpart_collective("all_reduce", "nccl"), "");
  EXPECT_EQ(torch_counterpart_collective("all_gather", "one_shot"), "");
}

TEST(TorchRef, MergesIntoTheFusedRowsWithACounterpart) {
  const auto torch = read_torch_csv(torch_csv());
  const std::string path = copy_fixture("fused_fixture.csv");
  TextCsv csv = read_text_csv(path);
  EXPECT_EQ(merge_torch_fused(csv, torch), 4);  // gemm_rs: intra, two inter, cublas_nccl
  const auto* inter = find_row(csv, "op", "gemm_rs", "pk_inter", "comm_sms", "8");
  ASSERT_NE(inter, nullptr);
  EXPECT_EQ(inter->at("ref_tool"), "pytorch 2.11.0 fused_matmul_reduce_scatter");
  EXPECT_EQ(inter->at("ref_time_us"), "900");
  EXPECT_NEAR(std::stod(inter->at("ref_ratio")), 1005.0 / 900, 1e-3);
  const auto* base = find_row(csv, "op", "gemm_rs", "cublas_nccl");
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(base->at("ref_tool"), "pytorch 2.11.0 matmul_then_reduce_scatter");
  EXPECT_EQ(base->at("ref_ratio"), "1");
  EXPECT_EQ(find_row(csv, "op", "gemm_rs", "gemm_pk")->at("ref_tool"), "");  // a component
  EXPECT_EQ(find_row(csv, "op", "ag_gemm", "pk_intra")->at("ref_tool"), "");  // PyTorch's row was an error
  // Written back whole: every column once, the reference columns before the metadata.
  write_text_csv(path, csv);
  const TextCsv back = read_text_csv(path);
  EXPECT_EQ(back.rows.size(), csv.rows.size());
  EXPECT_EQ(std::count(back.header.begin(), back.header.end(), "ref_tool"), 1);
  EXPECT_LT(std::find(back.header.begin(), back.header.end(), "ref_ratio"),
            std::find(back.header.begin(), back.header.end(), "gpu_name"));
  EXPECT_EQ(find_row(back, "op", "gemm_rs", "pk_inter", "comm_sms", "8")->at("ref_time_us"), "900");
  fs::remove(path);
}

TEST(TorchRef, MergesIntoOurAllReducesOnly) {
  const auto torch = read_torch_csv(torch_csv());
  const std::string path = copy_fixture("collectives_fixture.csv");
  TextCsv csv = read_text_csv(path);
  EXPECT_EQ(merge_torch_collectives(csv, torch), 1);  // one_shot 64 KiB eager; two_shot's is a graph row
  const auto* one = find_row(csv, "collective", "all_reduce", "one_shot", "bytes", "65536");
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->at("ref_tool"), "pytorch 2.11.0 one_shot_all_reduce");
  EXPECT_NEAR(std::stod(one->at("ref_ratio")), 0.9, 1e-9);
  EXPECT_EQ(find_row(csv, "collective", "all_reduce", "nccl", "bytes", "65536")->at("ref_tool"), "");
  EXPECT_EQ(find_row(csv, "collective", "all_reduce", "one_shot", "bytes", "1048576")->at("ref_tool"), "");
  fs::remove(path);
}
