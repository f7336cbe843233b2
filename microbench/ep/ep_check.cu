// The checks of a point's final run (ep_runner.h): the device kernels of
// kernels/ep/ep_check.cuh over every row and element, the counts and regions against the
// traffic the routing implies, and host spot checks in fp64 from the same value functions.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <vector>

#include "kernels/ep/ep_check.cuh"
#include "microbench/ep/ep_runner.h"
#include "microbench/harness/cuda_check.h"

namespace pk::ep {

namespace {

CheckCounters zeroed_counters(RankBuffers& b) {
  PK_CUDA_CHECK(cudaMemset(b.counters, 0, sizeof(CheckCounters)));
  return CheckCounters{};
}
CheckCounters read_counters(RankBuffers& b) {
  PK_CUDA_CHECK(cudaDeviceSynchronize());
  CheckCounters h{};
  PK_CUDA_CHECK(cudaMemcpy(&h, b.counters, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}
double rel_of(unsigned bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Every rank's findings summed (the largest relative error: the largest), the first failure
// of the lowest rank.
Checked gathered(Comm& comm, const Checked& mine) {
  const std::vector<std::string> firsts = comm.allgather_strings(mine.first);
  const double v[4] = {mine.wrong_rows, mine.wrong_counts, mine.wrong_values, mine.max_rel};
  std::vector<double> all(4 * comm.size());
  comm.allgather(v, all.data(), sizeof v);
  Checked c;
  for (int r = 0; r < comm.size(); ++r) {
    c.wrong_rows += all[4 * r];
    c.wrong_counts += all[4 * r + 1];
    c.wrong_values += all[4 * r + 2];
    c.max_rel = std::max(c.max_rel, all[4 * r + 3]);
    if (c.first.empty()) c.first = firsts[r];
  }
  return c;
}

void note(Checked& c, int gpu, const std::string& what) {
  if (c.first.empty()) c.first = "rank " + std::to_string(gpu) + ": " + what;
}

int grid_x(Context& c) { return std::max(1, std::min(256, c.sm_budget() * 2)); }

// The layout's ints of `gpu`, on the host.
std::vector<int> layout_ints(Context& c, int gpu) {
  std::vector<int> v(LayoutDims{c.local_experts(), c.ranks()}.ints());
  PK_CUDA_CHECK(cudaMemcpy(v.data(), c.at(gpu).layout, v.size() * 4, cudaMemcpyDeviceToHost));
  return v;
}

}  // namespace

Checked check_dispatch(Context& c, bool ll) {
  Checked mine;
  const int N = c.ranks(), El = c.local_experts(), T = c.shape.tokens;
  const LayoutDims d{El, N};
  collectively(c.group.comm(), [&] {
    for (int gpu : c.local_gpus()) {
      c.group.set_device(gpu);
      RankBuffers& b = c.at(gpu);
      const std::vector<int> L = layout_ints(c, gpu);
      std::vector<int> want(El);
      for (int j = 0; j < El; ++j) want[j] = c.traffic().expert_count[size_t(gpu) * El + j];
      const std::vector<int> base = ll ? std::vector<int>() : packed_bases(want);
      bool regions_ok = true;
      for (int j = 0; j < El; ++j) {
        const int want_base = ll ? j * c.ll_cap() : base[j];
        if (L[d.count_at() + j] != want[j] || L[d.base_at() + j] != want_base) {
          ++mine.wrong_counts;
          regions_ok = false;
          std::ostringstream os;
          os << "expert " << j << ": " << L[d.count_at() + j] << " rows at " << L[d.base_at() + j] << ", want " << want[j]
             << " at " << want_base;
          note(mine, gpu, os.str());
        }
      }
      for (int s = 0; s < N; ++s) {
        const int want_slots = ll ? T : c.traffic().tokens_to[s][gpu];
        if (L[d.slots_at() + s] != want_slots) {
          ++mine.wrong_counts;
          note(mine, gpu, "from rank " + std::to_string(s) + ": " + std::to_string(L[d.slots_at() + s]) + " tokens, want " +
                              std::to_string(want_slots));
        }
      }
      if (!regions_ok) continue;  // the rows' places are unknown: counted as wrong counts
      zeroed_counters(b);
      PK_CUDA_CHECK(cudaMemset(b.seen, 0, (uint64_t(El) * N * T + 31) / 32 * 4));
      const dim3 grid(static_cast<unsigned>(grid_x(c)), static_cast<unsigned>(El));
      check_dispatch_kernel<<<grid, 256>>>(b.recv, c.layout(gpu), b.row_src, b.topk_all, b.seen, N, T, c.shape.topk,
                                           c.shape.hidden, c.x_seed(1), gpu, El, b.counters);
      PK_CUDA_CHECK_LAUNCH();
      const CheckCounters h = read_counters(b);
      mine.wrong_rows += double(h.wrong_rows);
      if (h.wrong_rows) note(mine, gpu, std::to_string(h.wrong_rows) + " received rows not bitwise their source token");
    }
  });
  return gathered(c.group.comm(), mine);
}

Checked check_combine(Context& c, uint64_t y_generation) {
  Checked mine;
  const int T = c.shape.tokens, K = c.shape.topk, H = c.shape.hidden;
  const uint64_t seed = c.y_seed(y_generation);
  collectively(c.group.comm(), [&] {
    for (int gpu : c.local_gpus()) {
      c.group.set_device(gpu);
      RankBuffers& b = c.at(gpu);
      zeroed_counters(b);
      check_combine_kernel<<<grid_x(c) * 4, 256>>>(b.out, b.topk, b.w, T, K, H, seed, gpu, b.counters);
      PK_CUDA_CHECK_LAUNCH();
      const CheckCounters h = read_counters(b);
      mine.wrong_values += double(h.wrong_values);
      mine.max_rel = std::max(mine.max_rel, rel_of(h.max_rel_bits));
      if (h.wrong_values) note(mine, gpu, std::to_string(h.wrong_values) + " combined values off the fp64 reference");
      // The device reference against the host's: a few whole tokens in fp64 here.
      const Routing& r = c.routing(gpu);
      std::vector<uint16_t> row(H);
      for (int t : {0, T / 3, (2 * T) / 3, T - 1}) {
        PK_CUDA_CHECK(cudaMemcpy(row.data(), b.out + int64_t(t) * H, size_t(H) * 2, cudaMemcpyDeviceToHost));
        for (int col = 0; col < H; ++col) {
          double ref = 0, mag = 0;
          for (int k = 0; k < K; ++k) {
            const double v = double(r.w[size_t(t) * K + k]) * bf16_to_float(y_bits(seed, r.topk[size_t(t) * K + k], gpu, t, col));
            ref += v;
            mag += std::fabs(v);
          }
          const double err = std::fabs(double(bf16_to_float(row[col])) - ref);
          if (!(err <= kCombineTol * mag + 1e-30)) {
            ++mine.wrong_values;
            note(mine, gpu, "token " + std::to_string(t) + " column " + std::to_string(col) + ": " +
                                std::to_string(bf16_to_float(row[col])) + ", host fp64 reference " + std::to_string(ref));
          }
        }
      }
    }
  });
  return gathered(c.group.comm(), mine);
}

Checked check_gemm(Context& c) {
  Checked mine;
  const int El = c.local_experts(), H = c.shape.hidden, HE = c.shape.h_expert;
  const uint64_t xs = c.x_seed(1);
  collectively(c.group.comm(), [&] {
    for (int gpu : c.local_gpus()) {
      c.group.set_device(gpu);
      RankBuffers& b = c.at(gpu);
      zeroed_counters(b);
      const dim3 grid(static_cast<unsigned>(grid_x(c)), static_cast<unsigned>(El));
      check_finite_kernel<<<grid, 256>>>(b.c, c.layout(gpu), HE, b.counters);
      PK_CUDA_CHECK_LAUNCH();
      const CheckCounters h = read_counters(b);
      mine.wrong_values += double(h.wrong_values);
      if (h.wrong_values) note(mine, gpu, std::to_string(h.wrong_values) + " GEMM outputs not finite (tiles never written)");
      // fp64 spot checks: two elements of every expert that has rows, from the value functions.
      const std::vector<int> L = layout_ints(c, gpu);
      const LayoutDims d{El, c.ranks()};
      uint64_t state = mix64(xs ^ uint64_t(gpu));
      for (int j = 0; j < El; ++j) {
        const int count = L[d.count_at() + j];
        for (int q = 0; q < 2 && count > 0; ++q) {
          state = mix64(state);
          const int64_t row = L[d.base_at() + j] + int64_t(state % uint64_t(count));
          const int col = static_cast<int>((state >> 32) % uint64_t(HE));
          int32_t src = 0;
          uint16_t got = 0;
          PK_CUDA_CHECK(cudaMemcpy(&src, b.row_src + row, 4, cudaMemcpyDeviceToHost));
          PK_CUDA_CHECK(cudaMemcpy(&got, b.c + row * HE + col, 2, cudaMemcpyDeviceToHost));
          const int e = gpu * El + j;
          double ref = 0, mag = 0;
          for (int k = 0; k < H; ++k) {
            const double v = double(bf16_to_float(x_bits(xs, src_rank(src), src_token(src), k))) *
                             bf16_to_float(w_bits(c.w_seed(), e, col, k));
            ref += v;
            mag += std::fabs(v);
          }
          const double err = std::fabs(double(bf16_to_float(got)) - ref);
          mine.max_rel = std::max(mine.max_rel, mag > 0 ? err / mag : err);
          if (!(err <= kCombineTol * mag + 1e-30)) {
            ++mine.wrong_values;
            note(mine, gpu, "GEMM expert " + std::to_string(j) + " row " + std::to_string(row) + " col " + std::to_string(col) +
                                ": " + std::to_string(bf16_to_float(got)) + ", host fp64 " + std::to_string(ref));
          }
        }
      }
    }
  });
  return gathered(c.group.comm(), mine);
}

}  // namespace pk::ep
