#pragma once
// The schedule registry. A schedule is one file, schedules/<name>.cu, and one line,
// PK_FUSED_SCHEDULE(<name>) in schedule_list.h (README.md). Its file is compiled twice, each
// time inside one generated translation unit holding every listed schedule (CMakeLists.txt):
// as plain C++ into pkbench_fused_schema, where only its declaration is compiled (the point
// grid, the CSV columns, the CPU tests and the sweeps read it), and as CUDA into
// pkbench_fused_core with PK_FUSED_FACTORIES defined, where only its factory is:
//
//   PK_FUSED_DECLARATION(name, {.kind = Kind::baseline, .summary = "...", .needs_nccl = true})
//   #ifdef PK_FUSED_FACTORIES
//   PK_FUSED_FACTORY(name) { ... return an Impl for point p on Context c ... }
//   #endif
//
// or, for the GEMM and the operator's collective in sequence (fused_context.h), one line:
//   PK_FUSED_IN_SEQUENCE(name, pk|cublas|none, pk|nccl|none, {declaration})
// A factory is called with the point's shape current (Context::ensure_shape) and refuses a
// point it cannot run with SkipPoint and the reason. Every factory compiles into one
// translation unit: a file's helpers need names no other schedule file uses.
#include <memory>

#include "microbench/fused/fused_problem.h"

namespace pk::fused {
class Context;
class Impl;
#define PK_FUSED_SCHEDULE(name)          \
  Schedule declare_schedule_##name();    \
  std::unique_ptr<Impl> make_schedule_##name(const Point& p, Context& c);
#include "microbench/fused/schedule_list.h"
#undef PK_FUSED_SCHEDULE
}  // namespace pk::fused

#ifdef PK_FUSED_FACTORIES
#include "microbench/fused/fused_context.h"
#define PK_FUSED_DECLARATION(name, ...)  // compiled into the schema library
#define PK_FUSED_FACTORY(name) \
  std::unique_ptr<pk::fused::Impl> pk::fused::make_schedule_##name(const Point& p, Context& c)
#define PK_FUSED_IN_SEQUENCE(name, gemm, coll, ...) \
  PK_FUSED_FACTORY(name) { return make_in_sequence(p, c, GemmBy::gemm, CollBy::coll); }
#else
#define PK_FUSED_DECLARATION(name, ...) \
  pk::fused::Schedule pk::fused::declare_schedule_##name() { return Schedule __VA_ARGS__; }
#define PK_FUSED_IN_SEQUENCE(name, gemm, coll, ...) PK_FUSED_DECLARATION(name, __VA_ARGS__)
#endif
