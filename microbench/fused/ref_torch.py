#!/usr/bin/env python3
"""PyTorch as a reference tool, the way nccl-tests is one for the collectives.

Times PyTorch's async tensor parallelism and its symmetric-memory all-reduces on the shapes
and sizes of this suite's fused and collective studies, in one invocation, and writes one
CSV row per (op, implementation, shape or size, launch mode). pkbench_torch_ref merges the
rows into the studies' CSVs (ref_tool, ref_time_us, ref_ratio).

    torchrun --nproc-per-node=4 microbench/fused/ref_torch.py --csv=torch.csv \\
        [--fused-sizes=4096,8192,16384] [--ar-sizes=4K:1G] [--modes=eager,graph] [--samples=5]

What it measures (every implementation verified after timing, on new inputs, against an
fp32 reference computed with cuBLAS and NCCL in fp32):
  gemm_rs    N x N/w x N then reduce-scatter of the rows (the fused study's local shape
             M=N, N=N, K=N/w): torch.ops.symm_mem.fused_matmul_reduce_scatter(A, B, "sum",
             0, group), and torch.mm then dist.reduce_scatter_tensor (cuBLAS then NCCL, as
             PyTorch runs them: the cross-check of the study's cublas_nccl rows)
  ag_gemm    gather the N/w-row shards of an N x N A, multiply by N x N/w:
             torch.ops.symm_mem.fused_all_gather_matmul(A_shard, [B], 0, group), and
             dist.all_gather_into_tensor then torch.mm
  all_reduce bf16 vectors of --ar-sizes bytes in symmetric memory (symm_mem.empty +
             rendezvous): torch.ops.symm_mem.one_shot_all_reduce and two_shot_all_reduce_
             (in place), and dist.all_reduce (PyTorch's NCCL)
B is stored N x K row-major and used transposed (x @ W.t(), nn.Linear's layout), as the
study's GEMMs read it.

Timing, as PyTorch users and its benchmarks time an op: a warm-up, then per sample a barrier,
`iters` back-to-back calls between two CUDA events on the current stream (eager), or one
replay of a CUDA graph holding `iters` calls (graph); time per call = elapsed / iters; each
sample's time is the slowest rank's (all-reduce MAX, as the study's gated timing); the median
over samples is reported with min and max. Every rank runs the same iteration count (rank
0's choice, broadcast).

Multicast (NVLS) is never used: TORCH_SYMM_MEM_DISABLE_MULTICAST=1 and NCCL_NVLS_ENABLE=0 are
set when unset, and a run is refused (exit 2) when either is set otherwise.

Where PyTorch or a GPU is missing, every requested row is written with status "skipped" and
the reason, and the exit status is 0. Bad arguments exit 2 naming the flag.
"""
import argparse
import math
import os
import statistics
import sys
import tempfile
import time
import warnings

COLUMNS = [
    "tool", "torch_version", "op", "impl", "launch_mode", "gpus", "size_n", "m", "n", "k", "bytes", "dtype",
    "iters", "samples", "time_us_median", "time_us_min", "time_us_max", "max_rel_err", "rel_fro_err", "verified",
    "status", "error",
]
FUSED_OPS = ("gemm_rs", "ag_gemm")
AR_IMPLS = ("one_shot_all_reduce", "two_shot_all_reduce_", "nccl_all_reduce")
FUSED_IMPLS = {
    "gemm_rs": ("fused_matmul_reduce_scatter", "matmul_then_reduce_scatter"),
    "ag_gemm": ("fused_all_gather_matmul", "all_gather_then_matmul"),
}
ELEM_TOL = 1.0 / 64  # the fused study's per-element tolerance (gemm_data.h kElemTol)


def fail(parser, msg):
    parser.error(msg)  # argparse: usage + message on stderr, exit 2


def parse_bytes(text):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper().rstrip("B")
    num = t.rstrip("KMG")
    unit = t[len(num):]
    if not num.isdigit() or unit not in units:
        raise ValueError(text)
    return int(num) * units[unit]


def parse_size_list(text):
    """"4K:1G" (doubling, as nccl-tests' -b/-e/-f 2) or a comma list of sizes."""
    if ":" in text:
        lo, hi = text.split(":", 1)
        lo, hi = parse_bytes(lo), parse_bytes(hi)
        if lo <= 0 or hi < lo:
            raise ValueError(text)
        out, s = [], lo
        while s <= hi:
            out.append(s)
            s *= 2
        return out
    return [parse_bytes(x) for x in text.split(",") if x]


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ref_torch.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--csv", required=True, help="output CSV (written to a temporary file, then renamed)")
    p.add_argument("--ops", default="gemm_rs,ag_gemm,all_reduce", help="comma list of gemm_rs, ag_gemm, all_reduce")
    p.add_argument("--fused-sizes", default="4096,8192,16384", help="the fused study's N values (its --sizes)")
    p.add_argument("--ar-sizes", default="4K:1G", help="all-reduce bytes: MIN:MAX (doubling) or a comma list")
    p.add_argument("--modes", default="eager,graph",
                   help="all-reduce launch modes: comma list of eager, graph (the fused ops run eager, as the study)")
    p.add_argument("--impls", default="all", help="comma list of implementations, or all")
    p.add_argument("--samples", type=int, default=5, help="timed samples per row (median reported)")
    p.add_argument("--sample-ms", type=float, default=20.0, help="target time of one sample (sets iters)")
    p.add_argument("--max-iters", type=int, default=100, help="most calls per sample")
    p.add_argument("--warmup-ms", type=float, default=100.0, help="warm-up per row")
    p.add_argument("--seed", type=int, default=0x5eed)
    a = p.parse_args(argv)
    a.ops = [x for x in a.ops.split(",") if x]
    for o in a.ops:
        if o not in FUSED_OPS + ("all_reduce",):
            fail(p, f"--ops: unknown op '{o}' (known: gemm_rs, ag_gemm, all_reduce)")
    a.modes = [x for x in a.modes.split(",") if x]
    for m in a.modes:
        if m not in ("eager", "graph"):
            fail(p, f"--modes: unknown launch mode '{m}' (eager, graph)")
    try:
        a.fused_sizes = [int(x) for x in a.fused_sizes.split(",") if x]
    except ValueError:
        fail(p, f"--fused-sizes: '{a.fused_sizes}' is not a comma list of integers")
    if any(n <= 0 for n in a.fused_sizes):
        fail(p, "--fused-sizes: N must be positive")
    try:
        a.ar_sizes = parse_size_list(a.ar_sizes)
    except ValueError:
        fail(p, f"--ar-sizes: '{a.ar_sizes}' is not MIN:MAX or a comma list of sizes (4K, 1M, 1G, bytes)")
    if any(s % 16 for s in a.ar_sizes):
        fail(p, "--ar-sizes: every size must be a multiple of 16 bytes (symmetric memory's alignment)")
    known = set(AR_IMPLS) | {i for v in FUSED_IMPLS.values() for i in v}
    a.impls = sorted(known) if a.impls == "all" else [x for x in a.impls.split(",") if x]
    for i in a.impls:
        if i not in known:
            fail(p, f"--impls: unknown implementation '{i}' (known: {', '.join(sorted(known))})")
    for flag, v in (("--samples", a.samples), ("--max-iters", a.max_iters)):
        if v < 1:
            fail(p, f"{flag}: must be at least 1, got {v}")
    if not (a.sample_ms > 0) or a.warmup_ms < 0:
        fail(p, "--sample-ms must be positive and --warmup-ms not negative")
    return a


def planned_rows(a, world):
    """Every (op, impl, mode, shape) row the arguments ask for, in output order."""
    rows = []
    for op in a.ops:
        if op in FUSED_OPS:
            for n_size in a.fused_sizes:
                part = n_size // world if world > 0 else 0
                m, n, k = (n_size, n_size, part) if op == "gemm_rs" else (n_size, part, n_size)
                for impl in FUSED_IMPLS[op]:
                    if impl in a.impls:  # eager only: the fused study has no graph mode
                        rows.append(dict(op=op, impl=impl, launch_mode="eager", size_n=n_size, m=m, n=n, k=k,
                                         bytes=""))
        else:
            for b in a.ar_sizes:
                for impl in AR_IMPLS:
                    if impl in a.impls:
                        for mode in a.modes:
                            rows.append(dict(op=op, impl=impl, launch_mode=mode, size_n="", m="", n="", k="", bytes=b))
    return rows


def write_csv(path, rows):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".ref_torch.", dir=d)
    with os.fdopen(fd, "w") as f:
        f.write(",".join(COLUMNS) + "\n")
        for r in rows:
            f.write(",".join(str(r.get(c, "")).replace(",", ";").replace("\n", " ") for c in COLUMNS) + "\n")
    os.replace(tmp, path)


def skip_all(a, reason, world):
    rows = []
    for r in planned_rows(a, world):
        r.update(tool="pytorch", torch_version="", gpus=world, dtype="bf16", status="skipped", error=reason)
        rows.append(r)
    write_csv(a.csv, rows)
    print(f"ref_torch.py: skipped: {reason} ({len(rows)} rows in {a.csv})", file=sys.stderr)
    return 0


def keep_multicast_off():
    """'' after forcing multicast off where unset, else the reason to refuse."""
    for var, off in (("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"), ("NCCL_NVLS_ENABLE", "0")):
        v = os.environ.get(var)
        if v is None:
            os.environ[var] = off
        elif v != off:
            return f"{var}={v}: NVSwitch multicast is never run here; unset it or set it to {off}"
    return ""


class Runner:
    def __init__(self, a, torch, dist, symm_mem):
        self.a, self.torch, self.dist, self.symm_mem = a, torch, dist, symm_mem
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.dev = torch.device("cuda", torch.cuda.current_device())
        self.group = dist.group.WORLD.group_name
        self.version = torch.__version__.split("+")[0]

    # ---- timing ----
    def agree(self, value, op="max"):
        t = self.torch.tensor([float(value)], device=self.dev)
        self.dist.all_reduce(t, op=self.dist.ReduceOp.MAX if op == "max" else self.dist.ReduceOp.MIN)
        return t.item()

    def time_calls(self, call, mode):
        torch = self.torch
        # Every call is a collective: every rank makes the same number of them, so the counts
        # come from the slowest rank's estimate (agree), never from a rank's own clock.
        call()  # loads the kernels, sizes symmetric-memory workspaces
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        call()
        torch.cuda.synchronize()
        per_call_ms = max(self.agree((time.perf_counter() - t0) * 1e3), 1e-3)
        for _ in range(int(min(1000, max(1, self.a.warmup_ms / per_call_ms)))):
            call()
        torch.cuda.synchronize()
        iters = int(max(1, min(self.a.max_iters, round(self.a.sample_ms / per_call_ms))))
        graph = None
        if mode == "graph":
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):  # capture needs warmed-up ops on a side stream
                call()
            torch.cuda.current_stream().wait_stream(side)
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                for _ in range(iters):
                    call()
            graph.replay()
            torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(self.a.samples):
            self.dist.barrier()
            torch.cuda.synchronize()
            start.record()
            if graph is not None:
                graph.replay()
            else:
                for _ in range(iters):
                    call()
            end.record()
            end.synchronize()
            times.append(self.agree(start.elapsed_time(end) * 1e3 / iters))
        del graph
        return iters, times

    # ---- checks ----
    def compare(self, out, ref, tol):
        """(max_rel_err, rel_fro_err, ok): out (bf16) against an fp32 reference, per element
        relative to max(|ref|, rms(ref)) as the fused study checks, over every rank."""
        torch = self.torch
        o, r = out.float(), ref.float()
        scale = torch.maximum(r.abs(), r.pow(2).mean().sqrt().expand_as(r))
        err = (o - r).abs() / scale
        bad = ~torch.isfinite(o)
        max_rel = float("inf") if bad.any().item() else err.max().item()
        fro = ((o - r).norm() / r.norm().clamp_min(1e-30)).item()
        max_rel = self.agree(max_rel)
        fro = self.agree(fro)
        return max_rel, fro, max_rel <= tol

    def rand(self, shape, seed):
        g = self.torch.Generator(device=self.dev)
        g.manual_seed(seed)
        return self.torch.randn(shape, generator=g, device=self.dev, dtype=self.torch.float32)

    # ---- fused ops ----
    def fused_case(self, op, impl, m, n, k, seed):
        """(call, check): call() runs the op once on the timed inputs; check(seed) runs it on new
        inputs and returns compare() against the fp32 reference."""
        torch, dist, w, group = self.torch, self.dist, self.world, self.group
        bf = torch.bfloat16
        # Inputs are N(0,1) / sqrt(K): outputs of order 1, never zero.
        def inputs(s):
            if op == "gemm_rs":  # A: M x K (this rank's K shard), B: N x K (used transposed)
                a = (self.rand((m, k), s * 131 + self.rank) / math.sqrt(k * w)).to(bf)
                b = self.rand((n, k), s * 131 + 64 + self.rank).to(bf)
            else:  # A: this rank's M/w x K row shard; B: N x K
                a = (self.rand((m // w, k), s * 131 + self.rank) / math.sqrt(k)).to(bf)
                b = self.rand((n, k), s * 131 + 64 + self.rank).to(bf)
            return a, b

        def run(a, b):
            bt = b.t()
            if impl == "fused_matmul_reduce_scatter":
                return torch.ops.symm_mem.fused_matmul_reduce_scatter(a, bt, "sum", 0, group)
            if impl == "matmul_then_reduce_scatter":
                c = torch.mm(a, bt)
                out = torch.empty((m // w, n), dtype=bf, device=self.dev)
                dist.reduce_scatter_tensor(out, c)
                return out
            if impl == "fused_all_gather_matmul":
                _, outs = torch.ops.symm_mem.fused_all_gather_matmul(a, [bt], 0, group)
                return outs[0]
            if impl == "all_gather_then_matmul":
                full = torch.empty((m, k), dtype=bf, device=self.dev)
                dist.all_gather_into_tensor(full, a)
                return torch.mm(full, bt)
            raise ValueError(impl)

        def reference(a, b):  # fp32 GEMM (no TF32) and fp32 NCCL
            prev = torch.backends.cuda.matmul.allow_tf32
            torch.backends.cuda.matmul.allow_tf32 = False
            try:
                if op == "gemm_rs":
                    c = torch.mm(a.float(), b.float().t())
                    out = torch.empty((m // w, n), dtype=torch.float32, device=self.dev)
                    dist.reduce_scatter_tensor(out, c)
                    return out
                full = torch.empty((m, k), dtype=torch.float32, device=self.dev)
                dist.all_gather_into_tensor(full, a.float())
                return torch.mm(full, b.float().t())
            finally:
                torch.backends.cuda.matmul.allow_tf32 = prev

        a, b = inputs(seed)

        def check(s):
            a2, b2 = inputs(s)
            out = run(a2, b2)
            torch.cuda.synchronize()
            tol = ELEM_TOL * (max(2.0, w) if op == "gemm_rs" else 1.0)
            return self.compare(out, reference(a2, b2), tol)

        return (lambda: run(a, b)), check

    # ---- all-reduce ----
    def ar_case(self, impl, nbytes, seed):
        torch, dist, group = self.torch, self.dist, self.group
        count = nbytes // 2
        bf = torch.bfloat16
        if impl == "nccl_all_reduce":
            buf = torch.empty(count, dtype=bf, device=self.dev)
        else:
            buf = self.symm_mem.empty(count, dtype=bf, device=self.dev)
            self.symm_mem.rendezvous(buf, group)

        def fill(s):
            buf.copy_(self.rand((count,), s * 131 + self.rank).to(bf))

        def run():
            if impl == "one_shot_all_reduce":
                return torch.ops.symm_mem.one_shot_all_reduce(buf, "sum", group)
            if impl == "two_shot_all_reduce_":
                return torch.ops.symm_mem.two_shot_all_reduce_(buf, "sum", group)
            dist.all_reduce(buf)
            return buf

        fill(seed)

        def check(s):
            fill(s)
            ref = buf.float().clone()
            dist.all_reduce(ref)  # fp32 NCCL sum of the bf16 inputs
            out = run()
            torch.cuda.synchronize()
            return self.compare(out, ref, ELEM_TOL * max(2.0, self.world))

        # In place (two_shot, NCCL): the timed calls keep summing, so values grow; the time of
        # an all-reduce does not depend on them, and the check refills first.
        return run, check

    def measure(self, row):
        mode = row["launch_mode"]
        try:
            if row["op"] in FUSED_OPS:
                if row["k"] == 0 or row["size_n"] % self.world:
                    raise SkipRow(f"N={row['size_n']} is not divisible by the GPU count {self.world}")
                call, check = self.fused_case(row["op"], row["impl"], row["m"], row["n"], row["k"], self.a.seed)
            else:
                if (row["bytes"] // 2) % self.world:
                    raise SkipRow(f"{row['bytes']} bytes do not split into {self.world} bf16 chunks")
                call, check = self.ar_case(row["impl"], row["bytes"], self.a.seed)
            iters, times = self.time_calls(call, mode)
            max_rel, fro, ok = check(self.a.seed + 1)
            row.update(iters=iters, samples=len(times))
            row.update(max_rel_err=f"{max_rel:.4g}", rel_fro_err=f"{fro:.4g}", verified=int(ok))
            if not ok:
                row.update(status="error", error=f"wrong result: max relative error {max_rel:.4g}")
            else:
                row.update(time_us_median=f"{statistics.median(times):.3f}", time_us_min=f"{min(times):.3f}",
                           time_us_max=f"{max(times):.3f}", status="ok", error="")
        except SkipRow as s:
            row.update(status="skipped", error=str(s))
        except Exception as e:  # an op PyTorch refuses (size, capture): the row says why
            row.update(status="error", error=f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300])
        finally:
            self.torch.cuda.synchronize()
            self.dist.barrier()
        return row


class SkipRow(Exception):
    pass


def main(argv):
    a = parse_args(argv)
    world_env = int(os.environ.get("WORLD_SIZE", "0") or 0)
    why = keep_multicast_off()
    if why:
        print(f"ref_torch.py: error: {why}", file=sys.stderr)
        return 2
    try:
        import torch
        import torch.distributed as dist
        import torch.distributed._symmetric_memory as symm_mem
    except Exception as e:  # noqa: BLE001 - any import failure is the reason to skip
        return skip_all(a, f"PyTorch is not importable here ({type(e).__name__}: {e})", world_env)
    if not torch.cuda.is_available():
        return skip_all(a, "PyTorch sees no CUDA GPU", world_env)
    if "RANK" not in os.environ:
        return skip_all(a, "not launched by torchrun (RANK unset): run it under torchrun --nproc-per-node=N", world_env)
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    world = dist.get_world_size()
    if world < 2:
        dist.destroy_process_group()
        return skip_all(a, "one process: the collectives need at least 2 GPUs", world)
    # Deprecated and unneeded from PyTorch 2.9 on, required before; harmless either way.
    if hasattr(symm_mem, "enable_symm_mem_for_group"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            symm_mem.enable_symm_mem_for_group(dist.group.WORLD.group_name)
    r = Runner(a, torch, dist, symm_mem)
    rows = planned_rows(a, world)
    done = []
    for i, row in enumerate(rows):
        row.update(tool="pytorch", torch_version=r.version, gpus=world, dtype="bf16")
        if r.rank == 0:
            what = f"{row['op']} {row['impl']} {row['launch_mode']} " + (
                f"N={row['size_n']}" if row["op"] in FUSED_OPS else f"{row['bytes']} B")
            print(f"ref_torch.py: [{i + 1}/{len(rows)}] {what}", file=sys.stderr, flush=True)
        done.append(r.measure(row))
        if r.rank == 0:
            print(f"ref_torch.py:   {done[-1]['status']} {done[-1].get('time_us_median', '')} us "
                  f"{done[-1].get('error', '')}", file=sys.stderr, flush=True)
    if r.rank == 0:
        write_csv(a.csv, done)
        ok = sum(x["status"] == "ok" for x in done)
        print(f"ref_torch.py: {ok} of {len(done)} rows ok ({a.csv})", file=sys.stderr)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
