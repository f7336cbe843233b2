// Collective study, CPU: bus-bandwidth factors, sizes -> counts and their refusals, the
// reference (inputs and expected outputs), the segment layouts of the direct path and of
// NCCL plus reshape (simulated on the host against the reference), the NCCL tuning-log
// parser, quantiles and the multicast refusal rules.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "microbench/collectives/coll_problem.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/tidy_csv.h"

using namespace pk::coll;

TEST(CollBusbw, NcclTestsFactors) {
  EXPECT_DOUBLE_EQ(busbw_factor(kAllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(kAllGather, 2), 0.5);
  EXPECT_DOUBLE_EQ(busbw_factor(kReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(busbw_factor(kAllToAll, 8), 0.875);
  EXPECT_DOUBLE_EQ(busbw_factor(kAllGatherCols, 2), 0.5);
  EXPECT_DOUBLE_EQ(busbw_factor(kAllReduce, 1), 0.0);
  // algbw = size / time; busbw = algbw * factor
  const Problem p = make_problem("all_reduce", DType::bf16, 1 << 30, 2, {});
  EXPECT_NEAR(p.algbw_gbps(1e-3), 1073.741824, 1e-9);
}

TEST(CollProblem, SizesToCountsFollowNcclTests) {
  TensorDims d;
  // count is per rank (all-to-all: per peer); element counts are per rank.
  struct Case {
    const char* coll;
    DType t;
    int n;
    uint64_t count, in_elems, out_elems;
  };
  for (const Case& c : {Case{"all_reduce", DType::f32, 2, 1024, 1024, 1024},
                        Case{"all_gather", DType::bf16, 2, 1024, 1024, 2048},
                        Case{"reduce_scatter", DType::bf16, 4, 512, 2048, 512},
                        Case{"all_to_all", DType::f32, 2, 512, 1024, 1024}}) {
    const Problem p = make_problem(c.coll, c.t, 4096, c.n, d);
    EXPECT_EQ(p.count, c.count) << c.coll;
    EXPECT_EQ(p.in_elems, c.in_elems) << c.coll;
    EXPECT_EQ(p.out_elems, c.out_elems) << c.coll;
  }
  d.cols = 1000;
  Problem agc = make_problem("all_gather_cols", DType::bf16, 2 * 2 * 1000 * 3, 2, d);
  EXPECT_EQ(agc.rows, 3u);
  EXPECT_EQ(agc.out_elems, 6000u);
  d.batch = 2;
  d.heads = 4;
  d.head_dim = 8;
  Problem a4 = make_problem("all_to_all_4d", DType::bf16, 2 * 2 * 5 * 4 * 8, 2, d);
  EXPECT_EQ(a4.Sl, 5u);
  EXPECT_EQ(a4.count, a4.in_elems / 2);
}

TEST(CollProblem, RefusesSizesNotDivisibleByRanks) {
  TensorDims d;
  try {
    make_problem("all_gather", DType::bf16, 4096, 3, d);
    FAIL() << "expected ArgError";
  } catch (const pk::ArgError& e) {
    EXPECT_NE(std::string(e.what()).find("--sizes"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("3 ranks"), std::string::npos);
  }
  EXPECT_THROW(make_problem("reduce_scatter", DType::f32, 4100, 2, d), pk::ArgError);
  EXPECT_THROW(make_problem("all_to_all", DType::bf16, 6, 4, d), pk::ArgError);
  EXPECT_THROW(make_problem("all_reduce", DType::f32, 6, 2, d), pk::ArgError);  // not whole elements
  EXPECT_NO_THROW(make_problem("all_reduce", DType::bf16, 6, 3, d));          // any element count
  d.heads = 6;
  EXPECT_THROW(make_problem_count("all_to_all_4d", DType::bf16, 4, 4, d), pk::ArgError);  // 6 heads on 4 ranks
  EXPECT_THROW(make_problem("all_gather", DType::bf16, 0, 2, d), pk::ArgError);
  EXPECT_THROW(make_problem("bogus", DType::bf16, 4096, 2, d), pk::ArgError);
  EXPECT_THROW(make_problem("all_reduce", DType::bf16, 4096, 9, d), pk::ArgError);
}

TEST(CollProblem, UnsupportedDtype) {
  EXPECT_EQ(parse_dtype("bf16"), DType::bf16);
  EXPECT_EQ(parse_dtype("fp32"), DType::f32);
  for (const char* bad : {"fp16", "int8", "fp8", ""}) EXPECT_THROW(parse_dtype(bad), pk::ArgError) << bad;
}

TEST(CollReference, InputsAreNonzeroAndExactInTheirType) {
  for (int dt : {kBf16, kF32})
    for (int r = 0; r < 4; ++r)
      for (uint64_t i = 0; i < 5000; ++i) {
        const double v = input_value(7, r, i, dt);
        ASSERT_NE(v, 0.0);
        ASSERT_GE(std::fabs(v), 0.25);
        ASSERT_LT(std::fabs(v), 4.0);
        // Representable with the type's significand: v * 2^(mb+2) is an integer.
        const double scaled = std::ldexp(std::fabs(v), mantissa_bits(dt) + 2);
        ASSERT_EQ(scaled, std::floor(scaled)) << v;
        if (dt == kBf16) ASSERT_EQ(static_cast<double>(static_cast<float>(v)), v);
      }
  // Ranks and seeds give different data.
  EXPECT_NE(input_value(1, 0, 5, kF32), input_value(1, 1, 5, kF32));
  EXPECT_NE(input_value(1, 0, 5, kF32), input_value(2, 0, 5, kF32));
}

namespace {
// Host model of each collective's output, written from its definition (not from
// ref_value), for rank `q`.
std::vector<double> host_expected(const Problem& p, int q, uint64_t seed) {
  const int dt = dtype_code(p.dtype);
  auto in = [&](int r, uint64_t i) { return input_value(seed, r, i, dt); };
  std::vector<double> out(p.out_elems, 0.0);
  const uint64_t n = p.n;
  switch (p.layout) {
    case kAllReduce:
      for (uint64_t j = 0; j < p.count; ++j)
        for (int r = 0; r < p.n; ++r) out[j] += in(r, j);
      break;
    case kReduceScatter:
      for (uint64_t j = 0; j < p.count; ++j)
        for (int r = 0; r < p.n; ++r) out[j] += in(r, q * p.count + j);
      break;
    case kAllGather:
      for (int r = 0; r < p.n; ++r)
        for (uint64_t j = 0; j < p.count; ++j) out[r * p.count + j] = in(r, j);
      break;
    case kAllToAll:
      for (int r = 0; r < p.n; ++r)
        for (uint64_t j = 0; j < p.count; ++j) out[r * p.count + j] = in(r, q * p.count + j);
      break;
    case kAllGatherCols:  // (rows, cols) each -> (rows, n*cols)
      for (uint64_t i = 0; i < p.rows; ++i)
        for (int r = 0; r < p.n; ++r)
          for (uint64_t c = 0; c < p.cols; ++c) out[i * n * p.cols + r * p.cols + c] = in(r, i * p.cols + c);
      break;
    case kReduceScatterCols:  // (rows, n*cols) -> (rows, cols): column block q
      for (uint64_t i = 0; i < p.rows; ++i)
        for (uint64_t c = 0; c < p.cols; ++c)
          for (int r = 0; r < p.n; ++r) out[i * p.cols + c] += in(r, i * n * p.cols + q * p.cols + c);
      break;
    case kAllToAll4d: {  // (B, Sl, H, D) -> (B, n*Sl, H/n, D): heads block q from every rank
      const uint64_t hn = p.H / n;
      for (uint64_t b = 0; b < p.B; ++b)
        for (int r = 0; r < p.n; ++r)
          for (uint64_t s = 0; s < p.Sl; ++s)
            for (uint64_t h = 0; h < hn; ++h)
              for (uint64_t d = 0; d < p.D; ++d)
                out[((b * n * p.Sl + r * p.Sl + s) * hn + h) * p.D + d] =
                    in(r, ((b * p.Sl + s) * p.H + q * hn + h) * p.D + d);
      break;
    }
  }
  return out;
}

// The collectives host_expected models (a collective added later is checked against its
// declaration by CollRegistry and on the GPU).
const std::vector<std::string> kModelled = {"all_reduce",      "all_gather",          "reduce_scatter", "all_to_all",
                                            "all_gather_cols", "reduce_scatter_cols", "all_to_all_4d"};

TensorDims small_dims(int n) {
  TensorDims d;
  d.cols = 5;
  d.batch = 2;
  d.heads = 2 * n;
  d.head_dim = 3;
  return d;
}

std::vector<Problem> small_problems(int n) {
  const TensorDims d = small_dims(n);
  std::vector<Problem> v;
  for (const auto& c : kModelled)
    for (uint64_t cnt : {1, 3, 17}) v.push_back(make_problem_count(c, DType::bf16, cnt, n, d));
  return v;
}
}  // namespace

// The registry (coll_list.h): every listed collective is found by its name and its layout
// code, each once; its sizes round-trip (bytes of a block back to the block); every output
// element of every rank is an input element that exists (or, reducing, one index of every
// rank); its factors are nccl-tests' range. A name not listed is refused, naming the flag.
TEST(CollRegistry, EveryListedCollectiveIsDeclaredConsistently) {
  std::set<std::string> names;
  std::set<int> codes;
  ASSERT_EQ(collectives().size(), collective_names().size());
  for (const CollectiveEntry& e : collectives()) {
    SCOPED_TRACE(e.name);
    EXPECT_TRUE(names.insert(e.name).second) << "listed twice";
    EXPECT_TRUE(codes.insert(e.decl->layout()).second) << "layout code " << e.decl->layout() << " taken";
    EXPECT_EQ(&collective_named(e.name), e.decl);
    EXPECT_EQ(&collective_of_layout(e.decl->layout()), e.decl);
    EXPECT_EQ(layout_of(e.name), e.decl->layout());
    EXPECT_FALSE(nccl_func_name(e.decl->layout()).empty());
    for (int n : {1, 2, 3, 4, 8}) {
      const double f = busbw_factor(e.decl->layout(), n);
      EXPECT_TRUE(f >= 0 && f <= 2) << f;
      for (DType t : {DType::bf16, DType::f32})
        for (uint64_t cnt : {1, 3, 17}) {
          const Problem p = make_problem_count(e.name, t, cnt, n, small_dims(n));
          EXPECT_EQ(p.collective, e.decl);
          EXPECT_EQ(p.coll, e.name);
          EXPECT_EQ(p.bytes, cnt * size_unit(e.name, t, n, small_dims(n))) << p.describe();
          const Problem q = make_problem(e.name, t, p.bytes, n, small_dims(n));
          EXPECT_EQ(q.count, p.count);
          EXPECT_EQ(q.in_elems, p.in_elems);
          EXPECT_EQ(q.out_elems, p.out_elems);
          for (int r = 0; r < n; ++r) {
            const RefSpec s = p.ref(r, 1);
            EXPECT_EQ(s.map.reduces != 0, layout_reduces(p.layout));
            for (uint64_t j = 0; j < p.out_elems; ++j) {
              const RefSource src = ref_source(s.map, j);
              ASSERT_LT(src.index, p.in_elems) << p.describe() << " rank " << r << " j " << j;
              if (s.map.reduces) ASSERT_EQ(src.rank, -1);
              else ASSERT_TRUE(src.rank >= 0 && src.rank < n) << src.rank;
            }
          }
        }
    }
  }
  try {
    collective_named("bogus");
    ADD_FAILURE() << "an unlisted collective was found";
  } catch (const pk::ArgError& e) {
    EXPECT_NE(std::string(e.what()).find("--collectives: unknown collective 'bogus'"), std::string::npos) << e.what();
  }
}

TEST(CollReference, MatchesHostModelOfEveryCollective) {
  for (int n : {2, 3, 4})
    for (const Problem& p : small_problems(n))
      for (int q = 0; q < n; ++q) {
        const auto want = host_expected(p, q, 11);
        const RefSpec s = p.ref(q, 11);
        for (uint64_t j = 0; j < p.out_elems; ++j) {
          double mag = -1;
          const double got = ref_value(s, j, &mag);
          ASSERT_DOUBLE_EQ(got, want[j]) << p.describe() << " rank " << q << " j " << j;
          if (layout_reduces(p.layout)) {
            ASSERT_GE(mag, std::fabs(got));
            ASSERT_GT(tolerance(s, mag), 0.0);
          } else {
            ASSERT_EQ(tolerance(s, mag), 0.0);  // copies must be exact
          }
        }
      }
}

namespace {
// Runs a segment layout on the host: for destination q, what rank `self` writes there
// (push_segments.cuh's addressing), or with p = block for the local reshape copies.
template <class Fn>
void for_each_element(const SegLayout& L, Fn fn) {
  for (uint64_t i1 = 0; i1 < L.n1; ++i1)
    for (uint64_t i0 = 0; i0 < L.n0; ++i0)
      for (uint64_t j = 0; j < L.len; ++j) fn(i1, i0, j);
}
}  // namespace

TEST(CollLayouts, DirectPushMatchesReference) {
  const uint64_t seed = 3;
  for (int n : {2, 3, 4})
    for (const Problem& p : small_problems(n)) {
      if (p.layout == kAllReduce) continue;
      const SegLayout L = direct_layout(p, 8);  // tiny pieces: several per segment
      ASSERT_GT(L.items(), 0u);
      std::vector<std::vector<double>> out(n, std::vector<double>(p.out_elems, 0.0));
      const int dt = dtype_code(p.dtype);
      const bool red = layout_reduces(p.layout);
      for (int self = 0; self < n; ++self)
        for (int q = 0; q < n; ++q)  // rank `self` sends to q (reductions: q's slot, summed)
          for_each_element(L, [&](uint64_t i1, uint64_t i0, uint64_t j) {
            const uint64_t src = i1 * L.src1 + i0 * L.src0 + q * L.src_p + j;
            const uint64_t dst = i1 * L.dst1 + i0 * L.dst0 + (red ? 0 : self * L.dst_self) + j;
            ASSERT_LT(src, p.in_elems);
            ASSERT_LT(dst, p.out_elems);
            const double v = input_value(seed, self, src, dt);
            if (red) out[q][dst] += v;
            else out[q][dst] = v;
          });
      for (int q = 0; q < n; ++q) {
        const RefSpec s = p.ref(q, seed);
        for (uint64_t j = 0; j < p.out_elems; ++j) ASSERT_DOUBLE_EQ(out[q][j], ref_value(s, j, nullptr)) << p.describe();
      }
    }
}

TEST(CollLayouts, NcclPlusReshapeMatchesReference) {
  const uint64_t seed = 5;
  for (int n : {2, 3})
    for (const Problem& p : small_problems(n)) {
      const ReshapePlan r = nccl_reshape_plan(p, 8);
      const int dt = dtype_code(p.dtype);
      // before: user input -> NCCL send buffer (per rank)
      std::vector<std::vector<double>> send(n, std::vector<double>(r.nccl_send_elems, 0.0));
      for (int q = 0; q < n; ++q) {
        if (r.before.n1 == 0) {
          for (uint64_t i = 0; i < p.in_elems; ++i) send[q][i] = input_value(seed, q, i, dt);
        } else {
          for (int b = 0; b < n; ++b)
            for_each_element(r.before, [&](uint64_t i1, uint64_t i0, uint64_t j) {
              send[q][i1 * r.before.dst1 + i0 * r.before.dst0 + b * r.before.dst_self + j] =
                  input_value(seed, q, i1 * r.before.src1 + i0 * r.before.src0 + b * r.before.src_p + j, dt);
            });
        }
      }
      // NCCL's contiguous collective
      std::vector<std::vector<double>> recv(n, std::vector<double>(r.nccl_recv_elems, 0.0));
      const uint64_t c = r.nccl_count;
      for (int q = 0; q < n; ++q)
        for (int s = 0; s < n; ++s)
          for (uint64_t j = 0; j < c; ++j) switch (p.layout) {
              case kAllReduce: recv[q][j] += send[s][j]; break;
              case kAllGather:
              case kAllGatherCols: recv[q][s * c + j] = send[s][j]; break;
              case kReduceScatter:
              case kReduceScatterCols: recv[q][j] += send[s][q * c + j]; break;
              default: recv[q][s * c + j] = send[s][q * c + j]; break;
            }
      // after: NCCL receive buffer -> user output
      for (int q = 0; q < n; ++q) {
        std::vector<double> out = recv[q];
        if (r.after.n1 != 0) {
          out.assign(p.out_elems, 0.0);
          for (int b = 0; b < n; ++b)
            for_each_element(r.after, [&](uint64_t i1, uint64_t i0, uint64_t j) {
              out[i1 * r.after.dst1 + i0 * r.after.dst0 + b * r.after.dst_self + j] =
                  recv[q][i1 * r.after.src1 + i0 * r.after.src0 + b * r.after.src_p + j];
            });
        }
        const RefSpec s = p.ref(q, seed);
        ASSERT_EQ(out.size(), p.out_elems);
        for (uint64_t j = 0; j < p.out_elems; ++j) ASSERT_DOUBLE_EQ(out[j], ref_value(s, j, nullptr)) << p.describe();
      }
    }
}

TEST(CollLayouts, VectorPathOnlyWhenAligned) {
  TensorDims d;
  d.cols = 1000;  // 2000 B rows: 16-B aligned for bf16
  EXPECT_EQ(direct_layout(make_problem_count("all_gather_cols", DType::bf16, 4, 2, d), 8192).vec, 1);
  d.cols = 1001;
  EXPECT_EQ(direct_layout(make_problem_count("all_gather_cols", DType::bf16, 4, 2, d), 8192).vec, 0);
  EXPECT_EQ(direct_layout(make_problem_count("all_gather", DType::f32, 1001, 2, d), 8192).vec, 0);
  EXPECT_EQ(direct_layout(make_problem_count("all_gather", DType::f32, 1024, 2, d), 8192).vec, 1);
}

TEST(CollStats, Quantiles) {
  EXPECT_DOUBLE_EQ(quantile({3, 1, 2}, 0.5), 2);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0.1), 2);
  EXPECT_DOUBLE_EQ(quantile({1, 2}, 0.5), 1.5);
  EXPECT_DOUBLE_EQ(quantile({}, 0.5), 0);
}

TEST(CollNcclConfigs, NamesParsingAndRefusals) {
  const auto& all = nccl_configs();
  ASSERT_EQ(all.size(), 8u);  // default, symmetric, {LL, LL128, Simple} x {Ring, Tree}
  std::set<std::string> impls, names;
  for (const auto& c : all) {
    impls.insert(c.impl_name());
    names.insert(c.name);
    // The name is the nccl_config cell: the CSV writer must keep it as it is.
    EXPECT_EQ(pk::plain_field(c.name), c.name);
  }
  EXPECT_EQ(impls.size(), all.size());
  EXPECT_EQ(names.size(), all.size());
  EXPECT_TRUE(impls.count("nccl") && impls.count("nccl_sym") && impls.count("nccl_ll128_tree"));
  EXPECT_TRUE(names.count("default") && names.count("symmetric") && names.count("Simple/Ring"));

  EXPECT_EQ(parse_nccl_configs("all").size(), all.size());
  const auto two = parse_nccl_configs("LL/Ring,default,LL/Ring");
  ASSERT_EQ(two.size(), 2u);  // repeats once
  EXPECT_EQ(two[0].proto, "LL");
  EXPECT_EQ(two[0].algo, "Ring");
  EXPECT_EQ(two[1].name, "default");
  for (const char* bad : {"LL/NVLS", "ll/ring", "fast", ","}) {
    try {
      parse_nccl_configs(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const pk::ArgError& e) {
      EXPECT_NE(std::string(e.what()).find("--nccl-configs"), std::string::npos) << e.what();
    }
  }

  auto by = [&](const std::string& n) { return parse_nccl_configs(n)[0]; };
  EXPECT_EQ(nccl_config_refusal(by("LL/Tree"), kAllReduce), "");
  EXPECT_NE(nccl_config_refusal(by("LL/Tree"), kAllGather), "");
  EXPECT_NE(nccl_config_refusal(by("Simple/Tree"), kReduceScatterCols), "");
  EXPECT_EQ(nccl_config_refusal(by("LL128/Ring"), kReduceScatter), "");
  EXPECT_NE(nccl_config_refusal(by("LL/Ring"), kAllToAll), "");
  EXPECT_NE(nccl_config_refusal(by("LL/Ring"), kAllToAll4d), "");
  EXPECT_EQ(nccl_config_refusal(by("default"), kAllToAll), "");
  EXPECT_EQ(nccl_config_refusal(by("symmetric"), kAllToAll4d), "");
  EXPECT_EQ(nccl_func_name(kAllGatherCols), "AllGather");
  EXPECT_EQ(nccl_func_name(kAllToAll4d), "AlltoAll");
}

TEST(CollMulticast, RefusalRules) {
  std::map<std::string, std::string> env;
  auto get = [&](const char* v) -> const char* {
    auto it = env.find(v);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  EXPECT_NE(multicast_refusal(false, 1, get).find("--allow-multicast"), std::string::npos);
  EXPECT_EQ(multicast_refusal(true, 1, get), "");
  EXPECT_NE(multicast_refusal(true, 0, get), "");   // the device says no
  EXPECT_NE(multicast_refusal(true, -1, get), "");  // not known: refused
  for (const auto& [var, val] : std::vector<std::pair<std::string, std::string>>{
           {"NCCL_NVLS_ENABLE", "0"}, {"NVSHMEM_DISABLE_NVLS", "1"}, {"TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"}}) {
    env = {{var, val}};
    const std::string why = multicast_refusal(true, 1, get);
    EXPECT_NE(why.find(var), std::string::npos) << why;
  }
  env = {{"NCCL_NVLS_ENABLE", "1"}};
  EXPECT_EQ(multicast_refusal(true, 1, get), "");
}

// --coll-sms / --coll-threads: auto or positive integers (threads: whole warps, <= 1024),
// refused with the flag named.
TEST(CollKnobs, ParsesAutoAndIntegersAndRefusesTheRestNamingTheFlag) {
  EXPECT_EQ(parse_knob_list(Knob::sms, "auto"), std::vector<int>{0});
  EXPECT_EQ(parse_knob_list(Knob::sms, "auto,8,8,3,auto"), (std::vector<int>{0, 8, 3}));
  EXPECT_EQ(parse_knob_list(Knob::threads, "128,auto,1024"), (std::vector<int>{128, 0, 1024}));
  auto refused = [](Knob k, const std::string& v, const std::string& says) {
    try {
      parse_knob_list(k, v);
      ADD_FAILURE() << v << " was accepted";
    } catch (const pk::ArgError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(std::string(knob_flag(k)) + "=" + v), std::string::npos) << m;
      EXPECT_NE(m.find(says), std::string::npos) << m;
    }
  };
  refused(Knob::sms, "0", "at least one");
  refused(Knob::sms, "8,x", "neither auto nor a positive integer");
  refused(Knob::sms, "-4", "neither auto");
  refused(Knob::sms, "", "neither auto");
  refused(Knob::sms, "9999999", "neither auto");
  refused(Knob::threads, "100", "multiple of 32");
  refused(Knob::threads, "2048", "at most 1024");
  const auto g = knob_grid({0, 8}, {0, 256});
  ASSERT_EQ(g.size(), 4u);
  EXPECT_TRUE(g[0].is_auto());
  EXPECT_EQ(g[1].text(), "sms=auto threads=256");
  EXPECT_EQ(g[3].text(), "sms=8 threads=256");
  EXPECT_EQ(LaunchKnobs{}.text(), "auto");
}
