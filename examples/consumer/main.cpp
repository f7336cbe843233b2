// Picks a transfer mechanism, a collective configuration and a fused-kernel split for shapes
// nobody measured, from the tables pkbench_tune wrote, the way a user's program would.
//   consumer MACHINE TABLE.json...     (exit 0: every answer given and a foreign machine refused)
#include <pkbench/tuning.h>

#include <cstdio>

namespace tn = pkbench::tuning;

static bool show(const char* what, const tn::Answer& a, const std::string& choice) {
  std::printf("%-11s %-12s %s\n            %s\n", what, tn::to_string(a.basis), choice.c_str(), a.why.c_str());
  for (const auto& f : a.from) std::printf("            from %s\n", f.c_str());
  return a.ok();
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MACHINE TABLE.json...\n", argv[0]);
    return 2;
  }
  tn::Tuner tuner(argv[1]);
  for (int i = 2; i < argc; ++i) tuner.load_json_file(argv[i]);
  bool ok = true;
  // 3 MiB messages to one peer with up to 32 SMs to spare.
  const auto t = tuner.choose_transfer(3ull << 20, "push", 1, 32);
  ok &= show("transfer", t, t.mechanism + " sms=" + std::to_string(t.sms) + " threads=" + std::to_string(t.threads));
  // A 3 MiB bf16 all-reduce on two GPUs, eager or graph, whichever is faster.
  const auto c = tuner.choose_collective("all_reduce", 3ull << 20, "bf16", 2);
  ok &= show("collective", c, c.impl + " " + c.launch_mode + " sms=" + std::to_string(c.sms) + " threads=" +
                                  std::to_string(c.threads) + " (" + c.config + ")");
  // GEMM + reduce-scatter with a local 6144 x 6144 x 3072 GEMM.
  const auto s = tuner.choose_split("gemm_rs", 6144, 6144, 3072, 2);
  ok &= show("split", s, s.overlap + " comm_sms=" + std::to_string(s.comm_sms));
  // Another machine's tables are refused unless the caller accepts them.
  try {
    tn::Tuner other("h100x1");
    other.load_json_file(argv[2]);
    std::printf("FAILED: a table of %s was accepted for h100x1\n", argv[1]);
    ok = false;
  } catch (const tn::Error& e) {
    std::printf("refused as expected: %s\n", e.what());
  }
  return ok ? 0 : 1;
}
