#!/usr/bin/env python3
"""The tables of summary.md, from this folder's CSVs (columns read by name).

    python3 results/h200x2/collectives/summarise.py                   # print every table
    python3 results/h200x2/collectives/summarise.py --update summary.md   # rewrite them in place

--update replaces the text between `<!-- BEGIN summarise.py NAME -->` and
`<!-- END summarise.py NAME -->` in the file (prose outside the markers is kept).

Rules:
- A row counts only with status ok. When the same (collective, impl, dtype, bytes, launch_mode)
  occurs more than once in a CSV (points re-run and appended), the LAST row wins.
- "Best ours" = fastest row of family "pk"; "best NCCL" = fastest of families nccl / nccl_sym;
  NVSHMEM (family nvshmem) is shown beside and never counted as NCCL. Same collective, dtype,
  size and launch mode. Times are the gated medians (time_us_median); speedup = other / ours.
- --prev-rev REV: the commit whose collectives_mpi.csv is the previous run (default 5629e94,
  Run 2 of microbench/collectives/NOTES.md), for the "change since the last run" table.
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys
from collections import OrderedDict, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REL = "results/h200x2/collectives"
MODES = ("eager", "graph")
COLLS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all",
         "all_gather_cols", "reduce_scatter_cols", "all_to_all_4d")
ABLATION = [("(a)+(c) two_shot_push", "two_shot_push"),
            ("(b) handshake", "two_shot_push_handshake"),
            ("(d) staged", "two_shot_push_staged"),
            ("(b)+(d) handshake + staged", "two_shot_push_handshake_staged")]
KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


def human(b):
    for unit, name in ((GiB, "GiB"), (MiB, "MiB"), (KiB, "KiB")):
        if b >= unit and b % unit == 0:
            return f"{b // unit} {name}"
    return f"{b} B"


def f2(x):
    return "-" if x is None else f"{x:.0f}" if x >= 10000 else f"{x:.2f}"


def f1(x):
    return "-" if x is None else f"{x:.1f}"


class Run:
    """One CSV: ok rows keyed by (collective, impl, dtype, bytes, mode); last row wins."""

    def __init__(self, text):
        self.rows = OrderedDict()
        self.all_rows = list(csv.DictReader(io.StringIO(text)))
        for r in self.all_rows:
            key = (r["collective"], r["impl"], r["dtype"], int(r["bytes"]), r["launch_mode"])
            self.rows.pop(key, None)
            self.rows[key] = r

    @classmethod
    def load(cls, path):
        with open(path, newline="") as f:
            return cls(f.read())

    def ok(self):
        return [r for r in self.rows.values() if r["status"] == "ok"]

    def sizes(self, coll, dtype):
        return sorted({k[3] for k in self.rows if k[0] == coll and k[2] == dtype})

    def row(self, coll, impl, dtype, b, mode):
        return self.rows.get((coll, impl, dtype, b, mode))

    def best(self, coll, dtype, b, mode, families):
        cand = [r for r in self.ok() if r["collective"] == coll and r["dtype"] == dtype
                and int(r["bytes"]) == b and r["launch_mode"] == mode and r["family"] in families]
        return min(cand, key=lambda r: float(r["time_us_median"])) if cand else None


def stalled(r):
    """nccl-tests-method time inflated by a host stall: > 1.3x the gated median and > +50 us."""
    if not r or r["status"] != "ok" or not r["time_us_nccltests"]:
        return False
    nt, g = float(r["time_us_nccltests"]), float(r["time_us_median"])
    return nt > 1.3 * g and nt - g > 50


def t(r):
    return float(r["time_us_median"]) if r and r["status"] == "ok" else None


def ratio(a, b):
    return a / b if a is not None and b is not None and b > 0 else None


def point(run, coll, dtype, b, mode):
    """Best NCCL, best ours, NVSHMEM row (any status) and the speedups at one point."""
    bn = run.best(coll, dtype, b, mode, ("nccl", "nccl_sym"))
    bo = run.best(coll, dtype, b, mode, ("pk",))
    nv = run.row(coll, "nvshmem", dtype, b, mode)
    return dict(bn=bn, bo=bo, nv=nv, tn=t(bn), to=t(bo), tv=t(nv),
                sp=ratio(t(bn), t(bo)), spv=ratio(t(nv), t(bo)),
                bw=float(bo["busbw_gbps"]) if bo else None,
                bwn=float(bn["busbw_gbps"]) if bn else None,
                bwv=float(nv["busbw_gbps"]) if nv and nv["status"] == "ok" else None)


def nv_cell(p):
    nv = p["nv"]
    if nv is None:
        return "-"
    if nv["status"] == "skipped":
        return "skipped" + (" (scratch limit)" if "SCRATCH" in nv["error"] else "")
    return f2(p["tv"]) if nv["status"] == "ok" else nv["status"]


# ---------------------------------------------------------------------------------------------
def table_main(run):
    out = ["| collective | size (B) | mode | best NCCL us (which; NCCL choice) | NCCL us, nccl-tests "
           "method | NVSHMEM us | best ours us (impl) | speedup vs NCCL | speedup vs NVSHMEM | "
           "ours busbw GB/s |", "|---|---:|---|---|---:|---:|---|---:|---:|---:|"]
    for c in COLLS:
        for b in run.sizes(c, "bf16"):
            for m in MODES:
                p = point(run, c, "bf16", b, m)
                bn, bo = p["bn"], p["bo"]
                if bn is None and bo is None:
                    continue
                ncc = (f"{f2(p['tn'])} ({bn['family']}; {bn['nccl_algo'] or 'not logged'})"
                       if bn else "-")
                nt = float(bn["time_us_nccltests"]) if bn and bn["time_us_nccltests"] else None
                ours = f"{f2(p['to'])} ({bo['impl']})" if bo else "no row"
                out.append(f"| {c} | {b} | {m} | {ncc} | {f2(nt)}{' *' if stalled(bn) else ''} | {nv_cell(p)} | {ours} | "
                           f"{f2(p['sp'])} | {f2(p['spv'])} | {f1(p['bw'])} |")
    return "\n".join(out)


def sp_list(run, coll, sizes):
    parts = []
    for b in sizes:
        e, g = (point(run, coll, "bf16", b, m) for m in MODES)
        parts.append(f"{human(b)} {f2(e['sp'])} / {f2(g['sp'])}")
    return "; ".join(parts)


def all_sizes_target(run, coll, thr):
    sps, below = [], []
    for b in run.sizes(coll, "bf16"):
        for m in MODES:
            p = point(run, coll, "bf16", b, m)
            if p["sp"] is None:
                continue
            sps.append((p["sp"], b, m))
            if p["sp"] < thr:
                below.append(f"{human(b)} {m}")
    lo, hi = min(sps), max(sps)
    meas = (f"{f2(lo[0])} ({human(lo[1])} {lo[2]}) to {f2(hi[0])} ({human(hi[1])} {hi[2]}); "
            + (f"below {thr}: " + ", ".join(f"{human(b)} {m} {f2(x)}" for x, b, m in sps if x < thr)
               if below else f"every point >= {thr}"))
    return meas, not below, below


def table_targets(run):
    ar = "all_reduce"
    rows = []

    def band(lo, hi, thr, name):
        sizes = [b for b in run.sizes(ar, "bf16") if lo <= b <= hi]
        sps = [point(run, ar, "bf16", b, m)["sp"] for b in sizes for m in MODES]
        miss = [f"{human(b)} {m}" for b in sizes for m in MODES
                if point(run, ar, "bf16", b, m)["sp"] < thr]
        rows.append((name, sp_list(run, ar, sizes),
                     "met" if all(s >= thr for s in sps) else "missed at " + ", ".join(miss)))

    band(0, 64 * KiB, 1.3, "all-reduce >= 1.3x at every size <= 64 KB")
    band(256 * KiB, 16 * MiB, 1.5, "all-reduce >= 1.5x from 256 KB to 16 MB")
    band(256 * MiB, 1 << 62, 1.05, "all-reduce >= 1.05x at >= 256 MB")

    def verdict(parts):  # [(label, ok)] -> "met" / "missed" / "AG met, RS missed"
        if all(ok for _, ok in parts):
            return "met"
        if len(parts) == 1 or not any(ok for _, ok in parts):
            return "missed"
        return ", ".join(f"{lab} {'met' if ok else 'missed'}" for lab, ok in parts)

    def busbw(colls, name):
        meas, parts = [], []
        for c in colls:
            e, g = (point(run, c, "bf16", GiB, m) for m in MODES)
            label = {"all_reduce": "", "all_gather": "AG", "reduce_scatter": "RS"}[c]
            parts.append((label, e["bw"] >= 345 and g["bw"] >= 345))
            meas.append(f"{label + ' ' if label else ''}{f1(e['bw'])} / {f1(g['bw'])} "
                        f"({e['bo']['impl']} / {g['bo']['impl']}; best NCCL {f1(e['bwn'])} / "
                        f"{f1(g['bwn'])})")
        rows.append((name, "; ".join(meas), verdict(parts)))

    busbw([ar], "all-reduce busbw >= 345 GB/s at 1 GB")
    for c, name in (("all_gather", "all-gather"), ("reduce_scatter", "reduce-scatter"),
                    ("all_to_all", "all-to-all")):
        meas, ok, below = all_sizes_target(run, c, 1.0)
        rows.append((f"{name} >= 1.0x at every size", meas,
                     "met" if ok else "missed at " + ", ".join(below)))
    busbw(["all_gather", "reduce_scatter"], "AG / RS busbw >= 345 GB/s at 1 GB")
    meas, parts = [], []
    for c, label, counted in (("all_gather_cols", "AG", True),
                              ("reduce_scatter_cols", "RS", True),
                              ("all_to_all_4d", "4-D all-to-all (not a target)", False)):
        e, g = (point(run, c, "bf16", 64 * MiB, m) for m in MODES)
        if counted:
            parts.append((label, e["sp"] >= 1.5 and g["sp"] >= 1.5))
        meas.append(f"{label}{' (cols)' if counted else ''} {f2(e['sp'])} / {f2(g['sp'])}")
    rows.append(("tensor-dimension AG / RS >= 1.5x NCCL+reshape at 64 MB", "; ".join(meas),
                 verdict(parts)))
    out = ["| target | measured: speedup eager / graph (busbw GB/s eager / graph) | met? |",
           "|---|---|---|"]
    out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(out)


def table_ablation(run):
    out = []
    base = "two_shot_push"
    for m in MODES:
        hdr = "| size | " + " | ".join(
            f"{lab} us" if impl == base else f"{lab}: us, +us, x" for lab, impl in ABLATION)
        out += [f"{m}:", "", hdr + " |", "|---:|" + "---:|" + "---|" * (len(ABLATION) - 1)]
        for b in run.sizes("all_reduce", "bf16"):
            tb = t(run.row("all_reduce", base, "bf16", b, m))
            cells = [f2(tb)]
            for _, impl in ABLATION[1:]:
                tv = t(run.row("all_reduce", impl, "bf16", b, m))
                cells.append("-" if tv is None or tb is None else
                             f"{tv:.2f}, {tv - tb:+.2f}, {tv / tb:.2f}")
            out.append(f"| {human(b)} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out).rstrip()


def table_fp32(run):
    out = ["| collective | size | eager: best NCCL us / best ours us (impl) / speedup | "
           "graph: best NCCL us / best ours us (impl) / speedup |", "|---|---:|---|---|"]
    for c in COLLS:
        for b in run.sizes(c, "fp32"):
            cells = []
            for m in MODES:
                p = point(run, c, "fp32", b, m)
                ours = (f"{f2(p['to'])} ({p['bo']['impl']})" if p["bo"]
                        else "no row (run timed out)")
                cells.append(f"{f2(p['tn'])} / {ours} / {f2(p['sp'])}")
            out.append(f"| {c} | {human(b)} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def table_single(single, mpi):
    out = ["| size | mode | one process: best NCCL us / best ours us (impl) / speedup | "
           "mpirun: best NCCL us / best ours us (impl) / speedup | ours: one process / mpirun |",
           "|---:|---|---|---|---:|"]
    for b in single.sizes("all_reduce", "bf16"):
        for m in MODES:
            s, p = point(single, "all_reduce", "bf16", b, m), point(mpi, "all_reduce", "bf16", b, m)
            cells = [f"{f2(x['tn'])} / {f2(x['to'])} ({x['bo']['impl'] if x['bo'] else '-'}) / "
                     f"{f2(x['sp'])}" for x in (s, p)]
            out.append(f"| {human(b)} | {m} | {cells[0]} | {cells[1]} | "
                       f"{f2(ratio(s['to'], p['to']))} |")
    return "\n".join(out)


def table_nvshmem(run):
    out = ["| collective | mode | NVSHMEM us at 4 KiB / 1 MiB / 1 GiB | NVSHMEM busbw at 1 GiB | "
           "NVSHMEM time / best NCCL time at 4 KiB, 1 GiB | ours over NVSHMEM: min (size) - max (size) | "
           "skipped |", "|---|---|---|---:|---|---|---:|"]
    for c in COLLS[:4]:
        for m in MODES:
            pts = {b: point(run, c, "bf16", b, m) for b in run.sizes(c, "bf16")}
            sp = [(p["spv"], b) for b, p in pts.items() if p["spv"] is not None]
            skipped = sum(1 for p in pts.values() if p["nv"] is not None
                          and p["nv"]["status"] == "skipped")
            at = " / ".join(nv_cell(pts[b]) if b in pts else "-" for b in (4 * KiB, MiB, GiB))
            vs = ", ".join(f2(ratio(pts[b]["tv"], pts[b]["tn"])) if b in pts else "-"
                           for b in (4 * KiB, GiB))
            rng = (f"{f2(min(sp)[0])} ({human(min(sp)[1])}) - {f2(max(sp)[0])} ({human(max(sp)[1])})"
                   if sp else "-")
            out.append(f"| {c} | {m} | {at} | {f1(pts[GiB]['bwv']) if GiB in pts else '-'} | "
                       f"{vs} | {rng} | {skipped} |")
    return "\n".join(out)


def table_odd(run):
    count = defaultdict(lambda: defaultdict(int))
    for r in run.rows.values():
        count[r["family"]][r["status"]] += 1
    statuses = ["ok", "skipped", "error"]
    out = ["| family | rows | " + " | ".join(statuses) + " | skip reasons |", "|---|---:|"
           + "---:|" * len(statuses) + "---|"]
    for fam in ("pk", "nccl", "nccl_sym", "nvshmem"):
        if fam not in count:
            continue
        reasons = defaultdict(int)
        for r in run.rows.values():
            if r["family"] == fam and r["status"] == "skipped":
                e = re.sub(r"^rank \d+: ", "", r["error"])
                reasons["NCCL 2.28 symmetric kernels, per-rank block not a multiple of 16 B"
                        if "symmetric kernels" in e else
                        "NVSHMEM reduce-scatter scratch limit" if "SCRATCH" in e else e[:80]] += 1
        rs = "; ".join(f"{n} x {k}" for k, n in reasons.items()) or "-"
        out.append(f"| {fam} | {sum(count[fam].values())} | "
                   + " | ".join(str(count[fam].get(s, 0)) for s in statuses) + f" | {rs} |")
    return "\n".join(out)


def table_net(net, mpi):
    out = ["| size | NCCL choice (net) | net: gated us | net: nccl-tests us | net busbw GB/s "
           "(nccl-tests) | NVLink plain nccl eager us (same run grid) | net / NVLink |",
           "|---:|---|---:|---:|---:|---:|---:|"]
    for r in net.ok():
        b = int(r["bytes"])
        nvl = t(mpi.row("all_reduce", "nccl", "bf16", b, "eager"))
        tg = float(r["time_us_median"])
        out.append(f"| {human(b)} | {r['nccl_algo']} | {tg:.0f} | {float(r['time_us_nccltests']):.0f} "
                   f"| {float(r['busbw_gbps_nccltests']):.3g} | {f2(nvl)} | {f1(ratio(tg, nvl))} |")
    missing = [human(b) for b in (4 * KiB, MiB, 64 * MiB, GiB)
               if not any(int(r["bytes"]) == b for r in net.ok())]
    if missing:
        out.append("")
        out.append("No row (run out of its time budget): " + ", ".join(missing) + ".")
    return "\n".join(out)


def table_change(new, old):
    """Implementations in both runs: new / old gated median over every common point."""
    out = ["| collective | impl | points | new / old time: median (min - max) | "
           "1 GiB eager: old -> new us | 1 GiB graph: old -> new us |",
           "|---|---|---:|---|---|---|"]
    groups = defaultdict(list)
    for k, r in new.rows.items():
        o = old.rows.get(k)
        if k[2] != "bf16" or o is None or t(r) is None or t(o) is None:
            continue
        groups[(k[0], k[1])].append((k, t(o), t(r)))
    for (c, impl), pts in sorted(groups.items(), key=lambda x: (COLLS.index(x[0][0]), x[0][1])):
        rs = sorted(n / o for _, o, n in pts)
        med = rs[len(rs) // 2] if len(rs) % 2 else (rs[len(rs) // 2 - 1] + rs[len(rs) // 2]) / 2
        g = {k[4]: (o, n) for k, o, n in pts if k[3] == GiB}
        cells = [f"{g[m][0]:.2f} -> {g[m][1]:.2f}" if m in g else "-" for m in MODES]
        out.append(f"| {c} | {impl} | {len(pts)} | {med:.3f} ({rs[0]:.3f} - {rs[-1]:.3f}) | "
                   + " | ".join(cells) + " |")
    return "\n".join(out)


def table_best_change(new, old):
    """Best ours and its speedup over the best NCCL, previous run -> this run, at a few sizes."""
    out = ["| collective | size | eager: best ours, old -> new (speedup old -> new) | "
           "graph: best ours, old -> new (speedup old -> new) |", "|---|---:|---|---|"]
    for c in COLLS[:4]:
        for b in (4 * KiB, MiB, 64 * MiB, GiB):
            cells = []
            for m in MODES:
                po, pn = point(old, c, "bf16", b, m), point(new, c, "bf16", b, m)
                if po["bo"] is None or pn["bo"] is None:
                    cells.append("-")
                    continue
                cells.append(f"{f2(po['to'])} ({po['bo']['impl']}) -> {f2(pn['to'])} "
                             f"({pn['bo']['impl']}) ({f2(po['sp'])} -> {f2(pn['sp'])})")
            out.append(f"| {c} | {human(b)} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def table_counts(files):
    out = ["| file | rows | ok | skipped | error | ok rows whose nccl-tests-method time is > 1.3x "
           "the gated one and > +50 us |", "|---|---:|---:|---:|---:|---|"]
    for name, run in files:
        st, fam = defaultdict(int), defaultdict(int)
        for r in run.all_rows:
            st[r["status"]] += 1
            if stalled(r):
                fam[r["family"]] += 1
        ns = sum(fam.values())
        detail = f" ({', '.join(f'{k} {v}' for k, v in sorted(fam.items()))})" if ns else ""
        if name.startswith(("odd_", "nccl_net")):  # 1-2 launches per sample there: not compared
            ns, detail = "-", ""
        out.append(f"| `{name}` | {len(run.all_rows)} | {st['ok']} | {st['skipped']} | {st['error']} "
                   f"| {ns}{detail} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--dir", default=HERE)
    ap.add_argument("--prev-rev", default="5629e94")
    ap.add_argument("--update", metavar="MARKDOWN")
    a = ap.parse_args()
    L = lambda n: Run.load(os.path.join(a.dir, n))
    mpi, fp32 = L("collectives_mpi.csv"), L("collectives_fp32_mpi.csv")
    single, odd, net = (L("all_reduce_single_process.csv"), L("odd_counts_mpi.csv"),
                        L("nccl_net_mpi.csv"))
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=HERE, capture_output=True,
                         text=True).stdout.strip()
    prev = subprocess.run(["git", "show", f"{a.prev_rev}:{REL}/collectives_mpi.csv"], cwd=top,
                          capture_output=True, text=True)
    tables = OrderedDict([
        ("counts", table_counts([(n, r) for n, r in (
            ("collectives_mpi.csv", mpi), ("collectives_fp32_mpi.csv", fp32),
            ("all_reduce_single_process.csv", single), ("odd_counts_mpi.csv", odd),
            ("nccl_net_mpi.csv", net))])),
        ("main", table_main(mpi)),
        ("targets", table_targets(mpi)),
        ("change", table_change(mpi, Run(prev.stdout)) if prev.returncode == 0 else
         f"(previous run not found at {a.prev_rev}: {prev.stderr.strip()})"),
        ("best_change", table_best_change(mpi, Run(prev.stdout)) if prev.returncode == 0 else "-"),
        ("ablation", table_ablation(mpi)),
        ("fp32", table_fp32(fp32)),
        ("single", table_single(single, mpi)),
        ("nvshmem", table_nvshmem(mpi)),
        ("odd", table_odd(odd)),
        ("net", table_net(net, mpi)),
    ])
    if not a.update:
        for name, text in tables.items():
            print(f"<!-- BEGIN summarise.py {name} -->\n{text}\n<!-- END summarise.py {name} -->\n")
        return
    with open(a.update) as f:
        doc = f.read()
    for name, text in tables.items():
        pat = re.compile(rf"(<!-- BEGIN summarise.py {name} -->\n).*?(<!-- END summarise.py {name} -->)",
                         re.S)
        if not pat.search(doc):
            print(f"summarise.py: no markers for '{name}' in {a.update}", file=sys.stderr)
            continue
        doc = pat.sub(lambda m: m.group(1) + text + "\n" + m.group(2), doc)
    with open(a.update, "w") as f:
        f.write(doc)


if __name__ == "__main__":
    main()
