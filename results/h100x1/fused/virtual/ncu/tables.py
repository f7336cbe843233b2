#!/usr/bin/env python3
"""The README tables of the Nsight Compute runs over virtual ranks, from the committed files.

  python3 tables.py fused        # in results/h100x1/fused/virtual/ncu
  python3 tables.py collectives  # in results/h100x1/collectives/virtual/ncu

Inputs: <target>_<replay>_raw.csv (ncu --csv --print-units base --page raw, one row per range,
in range order), <target>_<replay>.log (the "profiler range N: K ops" lines give each range's
operation count), <target>_unprofiled.csv (the same points timed without the profiler, rows in
the same order). Per-op figures divide a range's counts by its operation count.
"""
import csv
import re
import sys


def load(target, replay):
    rows = list(csv.reader(open(f"{target}_{replay}_raw.csv")))
    header, data = rows[0], rows[2:]  # rows[1]: the units (base units: bytes, ns, cycles)
    col = {h: i for i, h in enumerate(header)}
    log = open(f"{target}_{replay}.log").read()
    ops = [int(k) for k in re.findall(r"profiler range \d+: (\d+) ops", log)]
    if replay == "app-range":  # every pass reruns the program: the first pass's announcements
        ops = ops[: len(data)]
    timed = [r for r in csv.DictReader(open(f"{target}_unprofiled.csv")) if r["status"] == "ok"]
    assert len(ops) == len(data) == len(timed), (len(ops), len(data), len(timed))

    def value(name, i):
        if name not in col:
            return float("nan")
        try:
            return float(data[i][col[name]].replace(",", ""))
        except ValueError:
            return float("nan")

    return ops, timed, value


def table(labels, lines):
    out = ["| | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for name, cells in lines:
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out)


STALLS = ["selected", "wait", "branch_resolving", "long_scoreboard", "not_selected", "short_scoreboard", "barrier",
          "math_pipe_throttle", "no_instruction", "membar"]


def fused():
    ops, timed, v = load("fused", "range")
    n = range(len(ops))
    us = [v("gpu__time_duration.sum", i) / 1e3 / ops[i] for i in n]
    f = lambda fmt, fn: [fmt.format(fn(i)) for i in n]
    lines = [
        ("operations in the range", f("{:d}", lambda i: ops[i])),
        ("us per op, unprofiled (median)", f("{:.1f}", lambda i: float(timed[i]["time_us_median"]))),
        ("us per op, in the range", f("{:.1f}", lambda i: us[i])),
        ("GB/s per comm SM, unprofiled (comm_bytes / time / SMs)",
         f("{:.1f}", lambda i: float(timed[i]["comm_bytes"]) / float(timed[i]["time_us_median"]) / 1e3 /
           int(timed[i]["comm_sms"]))),
        ("DRAM, % of peak (both ranks)", f("{:.0f}", lambda i: v("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", i))),
        ("L2, % of peak (both ranks)", f("{:.0f}", lambda i: v("lts__throughput.avg.pct_of_peak_sustained_elapsed", i))),
        ("DRAM MB per op (both ranks)",
         f("{:.0f}", lambda i: (v("dram__bytes_read.sum", i) + v("dram__bytes_write.sum", i)) / 1e6 / ops[i])),
        ("**a communicator SM (.max of the sub-partitions)**", [""] * len(ops)),
        ("SM active, % of the range", f("{:.0f}", lambda i: 100 * v("sm__cycles_active.max", i) / v("sm__cycles_elapsed.max", i))),
        ("warps per scheduler", f("{:.2f}", lambda i: v("smsp__warps_active.max", i) / v("smsp__cycles_active.max", i))),
        ("issue slots used, % of active cycles",
         f("{:.0f}", lambda i: 100 * v("smsp__issue_active.max", i) / v("smsp__cycles_active.max", i))),
        ("MB into the SM per op (L2 to SM)", f("{:.2f}", lambda i: v("l1tex__m_xbar2l1tex_read_bytes.max", i) / 1e6 / ops[i])),
        ("MB out of the SM per op", f("{:.2f}", lambda i: v("l1tex__m_l1tex2xbar_write_bytes.max", i) / 1e6 / ops[i])),
        ("GB/s into + out of the SM over the range",
         f("{:.1f}", lambda i: (v("l1tex__m_xbar2l1tex_read_bytes.max", i) + v("l1tex__m_l1tex2xbar_write_bytes.max", i)) /
           v("gpu__time_duration.sum", i))),
        ("warp instructions per SM per op (4 x .max)", f("{:.0f}k", lambda i: 4 * v("smsp__inst_executed.max", i) / ops[i] / 1e3)),
        ("shared-memory loads per SM per op (4 x .max)",
         f("{:.1f}k", lambda i: 4 * v("smsp__inst_executed_op_shared_ld.max", i) / ops[i] / 1e3)),
        ("TMA pipe busy, % of active cycles",
         f("{:.1f}", lambda i: 100 * v("sm__pipe_tma_cycles_active.max", i) / v("sm__cycles_active.max", i))),
    ]
    for s in STALLS:
        lines.append((f"stalled on {s}, % of warp cycles",
                      f("{:.0f}", lambda i, s=s: 100 * v(f"smsp__warps_issue_stalled_{s}.max", i) / v("smsp__warps_active.max", i))))
    print(table([f"{r['op']}, {r['comm_sms']} SMs" for r in timed], lines))


def collectives():
    ops, timed, v = load("collectives", "app-range")
    n = range(len(ops))
    t = [float(r["time_us_median"]) for r in timed]
    f = lambda fmt, fn: [fmt.format(fn(i)) for i in n]
    lines = [
        ("operations in the range", f("{:d}", lambda i: ops[i])),
        ("us per op, unprofiled (median)", f("{:.1f}", lambda i: t[i])),
        ("DRAM MB per op (both ranks)",
         f("{:.1f}", lambda i: (v("dram__bytes_read.sum", i) + v("dram__bytes_write.sum", i)) / 1e6 / ops[i])),
        ("DRAM TB/s at the unprofiled time",
         f("{:.2f}", lambda i: (v("dram__bytes_read.sum", i) + v("dram__bytes_write.sum", i)) / ops[i] / t[i] / 1e6)),
        ("L2 MB per op (both ranks)", f("{:.1f}", lambda i: v("lts__t_bytes.sum", i) / 1e6 / ops[i])),
        ("L2 TB/s at the unprofiled time", f("{:.2f}", lambda i: v("lts__t_bytes.sum", i) / ops[i] / t[i] / 1e6)),
        ("warp instructions per op (one rank)", f("{:.0f}k", lambda i: v("smsp__inst_executed.sum", i) / ops[i] / 1e3)),
        ("warps per scheduler", f("{:.2f}", lambda i: v("smsp__warps_active.sum", i) / v("smsp__cycles_active.sum", i))),
        ("issue slots used, % of active cycles", f("{:.0f}", lambda i: 100 * v("smsp__issue_active.sum", i) / v("smsp__cycles_active.sum", i))),
    ]
    for s in STALLS:
        lines.append((f"stalled on {s}, warps per issue",
                      f("{:.2f}", lambda i, s=s: v(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio", i))))
    print(table([f"{int(r['bytes']) >> 20} MiB {r['impl']}" for r in timed], lines))


if __name__ == "__main__":
    {"fused": fused, "collectives": collectives}[sys.argv[1]]()
