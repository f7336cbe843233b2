#!/usr/bin/env python3
"""Per-phase medians of the reduction communicator's clock64 stamps.

A build configured with -DCMAKE_CUDA_FLAGS=-DPKBENCH_COMM_TRACE=E makes pipeline 0 of communicator
block 0 print its stamps for launch epoch E (kernels/fused/gemm_reduce_inter.cuh: CTH/CTU/CTP lines)
into pkbench_fused's output. Usage: microbench/fused/comm-trace.py LOG [LOG ...]; prints, per log
and rank, the median cycles per piece and of each phase:
  wait   summer 0 between freeing the previous piece and the full barrier of this one (data late)
  sum    full barrier passed -> the sum's named barrier passed (the pipeline's summing warps)
  store  the sum stored and the stage freed (TMA store issue and its read-wait)
  load   the producer's copy issued -> the summer saw the stage full
  flag   the producer's acquire of a unit's flags (once per unit)
GEMM+RS in place (two GPUs) has no sum: its `sum` is two adjacent stamps (~50 cycles) and `store`
is the TMA reduce-add's issue, read-wait and stage release. Exit 0; 1 when a log holds no CTP
stamps; 2 with no argument or when a log cannot be read (one line naming it).
"""
import statistics
import sys


def phases(path):
    pieces, units = {}, {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == 'CTP' and len(w) == 7:
                pieces.setdefault(int(w[1]), []).append(tuple(int(x) for x in w[3:7]))
            elif w[0] == 'CTU' and len(w) == 5:
                units.setdefault(int(w[1]), []).append((int(w[3]), int(w[4])))
    for rank in sorted(pieces):
        p, u = pieces[rank], units.get(rank, [])
        n = len(p)
        if n < 2:
            continue
        med = statistics.median
        yield rank, {
            'pieces': n,
            'cycles/piece': (p[-1][3] - p[0][0]) / n,
            'wait': med(p[i][1] - p[i - 1][3] for i in range(1, n)),
            'sum': med(x[2] - x[1] for x in p),
            'store': med(x[3] - x[2] for x in p),
            'load': med(x[1] - x[0] for x in p),
            'flag': med(x[1] - x[0] for x in u) if u else float('nan'),
        }


def main(argv):
    if len(argv) < 2 or argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    cols = ['pieces', 'cycles/piece', 'wait', 'sum', 'store', 'load', 'flag']
    logs = []
    for path in argv[1:]:  # every log read before anything is printed: an unreadable one is one line, exit 2
        try:
            logs.append((path, list(phases(path))))
        except (OSError, UnicodeDecodeError) as e:
            print(f'comm-trace.py: {path}: {getattr(e, "strerror", None) or e}', file=sys.stderr)
            return 2
        except ValueError as e:  # a CTP/CTU line whose fields are not integers
            print(f'comm-trace.py: {path}: a stamp line that is not CTP/CTU integers ({e})', file=sys.stderr)
            return 2
    status = 0
    if any(rows for _, rows in logs):
        print('| log | rank | ' + ' | '.join(cols) + ' |')
        print('|---|---:|' + '---:|' * len(cols))
    for path, rows in logs:
        if not rows:
            print(f'comm-trace.py: {path}: no CTP stamps (built without -DPKBENCH_COMM_TRACE?)', file=sys.stderr)
            status = 1
        for rank, ph in rows:
            print(f'| {path} | {rank} | ' + ' | '.join(f'{ph[c]:.0f}' for c in cols) + ' |')
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv))
