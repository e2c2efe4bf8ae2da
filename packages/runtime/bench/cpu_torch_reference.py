"""PyTorch on the CPU (oneDNN where the build has it) references of the d2l CPU operators, for `pnpm bench:cpu`.

Reads the same JSON list of cases as cpu_numpy_reference.py on stdin and times each with the same
evaluator (its time_ms). Writes one JSON object per case to stdout: {"ms", "variant", "threads"
(torch.get_num_threads() during the run)}, or {"ms": null} for an operator it has no reference for.
`python3 cpu_torch_reference.py --version` prints {"version", "threads", "mkldnn"} and exits 1
with the import error when torch is not importable.
"""
import json
import os
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError as err:  # the benchmark skips the PyTorch column and says why
    print(json.dumps({"unavailable": f"{type(err).__name__}: {err}"}))
    sys.exit(1)

from cpu_numpy_reference import time_ms


def rand(*shape):
    return torch.rand(*shape, generator=torch.Generator().manual_seed(0), dtype=torch.float32)


def variants(case):
    op = case["op"]
    if op == "matmul":
        n = case["n"]
        a, b = rand(n, n), rand(n, n)
        c = torch.empty(n, n)
        return {"torch.mm": lambda: torch.mm(a, b, out=c)}
    if op not in ("conv2d", "depthwise_conv2d", "max_pool2d", "avg_pool2d", "batch_norm"):
        return None
    c, size, k, p = case["channels"], case["size"], case["kernel"], case["padding"]
    s = case.get("stride", 1)
    x = rand(1, c, size, size)
    if op == "conv2d":
        w = rand(c, c, k, k)
        return {"F.conv2d": lambda: F.conv2d(x, w, padding=p)}
    if op == "depthwise_conv2d":
        w = rand(c, 1, k, k)
        return {"F.conv2d groups=c": lambda: F.conv2d(x, w, padding=p, groups=c)}
    if op == "max_pool2d":
        return {"F.max_pool2d": lambda: F.max_pool2d(x, k, stride=s, padding=p)}
    if op == "avg_pool2d":
        # count_include_pad=True: the padded zeros count, as in the d2l operator and NumPy's reference.
        return {"F.avg_pool2d": lambda: F.avg_pool2d(x, k, stride=s, padding=p, count_include_pad=True)}
    mean, var, gamma, beta = rand(c), rand(c) + 0.1, rand(c), rand(c)
    return {"F.batch_norm (inference)": lambda: F.batch_norm(x, mean, var, gamma, beta, training=False, eps=1e-5)}


def use_every_core():
    """Debian's torch 1.13 starts with one intra-op thread on the 2-core machine; the team run uses every core the process may run on."""
    if "OMP_NUM_THREADS" not in os.environ:
        torch.set_num_threads(len(os.sched_getaffinity(0)))


def main():
    use_every_core()
    if sys.argv[1:] == ["--version"]:
        print(json.dumps({"version": torch.__version__, "threads": torch.get_num_threads(), "mkldnn": torch.backends.mkldnn.is_available()}))
        return
    cases = json.load(sys.stdin)
    with torch.inference_mode():
        for case in cases:
            found = variants(case)
            if found is None:
                print(json.dumps({"ms": None}), flush=True)
                continue
            times = {name: time_ms(fn) for name, fn in found.items()}
            best = min(times, key=times.get)
            print(json.dumps({"ms": times[best], "variant": best, "variants": times, "threads": torch.get_num_threads()}), flush=True)


if __name__ == "__main__":
    main()
