"""NumPy (Debian python3-numpy on OpenBLAS) references of the d2l CPU operators, for `pnpm bench:cpu`.

Reads a JSON list of cases on stdin: {"op": ..., plus the sizes}. For each case it times every
NumPy formulation of the operator (the best one counts) as TVM's time_evaluator would: a warm-up
call, then `repeat` samples of `number` calls, `number` grown until a sample takes `min_ms`.
Writes one JSON object per case to stdout: {"ms": median ms of the best formulation, "variant": its name,
"variants": {name: median ms}}.
"""
import json
import os
import sys
import time

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


# TESSERA_BENCH_CLOCK=cpu (`pnpm bench:cpu --clock cpu`): this process's CPU time, one thread, so that a
# loaded machine's waits for a core are not counted.
CLOCK = time.process_time if os.environ.get("TESSERA_BENCH_CLOCK") == "cpu" else time.perf_counter


def time_ms(fn, repeat=5, min_ms=50.0):
    fn()
    number = 1
    while True:
        t0 = CLOCK()
        for _ in range(number):
            fn()
        dt = (CLOCK() - t0) * 1e3
        if number == 1 and dt > 10 * min_ms:
            return dt  # a clearly slow formulation: one call says enough
        if dt >= min_ms or number >= 1 << 20:
            break
        number = max(int(min_ms / max(dt / number, 1e-6)) + 1, int(number * 1.618))
    samples = []
    for _ in range(repeat):
        t0 = CLOCK()
        for _ in range(number):
            fn()
        samples.append((CLOCK() - t0) * 1e3 / number)
    samples.sort()
    return samples[len(samples) // 2]


def rand(*shape):
    return np.random.default_rng(0).random(shape, dtype=np.float32)


def variants(case):
    op = case["op"]
    if op == "vector_add":
        a, b = rand(case["n"]), rand(case["n"])
        c = np.empty_like(a)
        return {"np.add": lambda: np.add(a, b, out=c)}
    if op == "broadcast_add":
        n, m = case["n"], case["m"]
        a, b = rand(n, 1), rand(n, m)
        c = np.empty((n, m), np.float32)
        return {"np.add": lambda: np.add(a, b, out=c)}
    if op == "matmul":
        n = case["n"]
        a, b = rand(n, n), rand(n, n)
        c = np.empty((n, n), np.float32)
        return {"np.dot (sgemm)": lambda: np.dot(a, b, out=c)}
    c, size, k, p = case["channels"], case["size"], case["kernel"], case["padding"]
    s = case.get("stride", 1)
    x = rand(c, size, size)
    out = (size + 2 * p - k) // s + 1
    if op == "conv2d":
        w = rand(c, c, k, k)
        w2 = w.reshape(c, c * k * k)

        def im2col():
            xp = np.pad(x, ((0, 0), (p, p), (p, p)))
            cols = sliding_window_view(xp, (k, k), axis=(1, 2))  # c, oh, ow, k, k
            cols = cols.transpose(0, 3, 4, 1, 2).reshape(c * k * k, out * out)
            return w2 @ cols

        def shifted_gemms():
            xp = np.pad(x, ((0, 0), (p, p), (p, p)))
            y = np.zeros((c, out * out), np.float32)
            for r in range(k):
                for t in range(k):
                    y += w[:, :, r, t] @ xp[:, r:r + out, t:t + out].reshape(c, out * out)
            return y

        return {"im2col + sgemm": im2col, "9 shifted sgemms": shifted_gemms}
    if op == "depthwise_conv2d":
        w = rand(c, 1, k, k)

        def shifted():
            xp = np.pad(x, ((0, 0), (p, p), (p, p)))
            y = np.zeros((c, out, out), np.float32)
            for r in range(k):
                for t in range(k):
                    y += w[:, 0, r, t, None, None] * xp[:, r:r + out, t:t + out]
            return y

        def einsum():
            xp = np.pad(x, ((0, 0), (p, p), (p, p)))
            return np.einsum("chwrs,crs->chw", sliding_window_view(xp, (k, k), axis=(1, 2)), w[:, 0], optimize=True)

        return {"shifted slices": shifted, "einsum over windows": einsum}
    if op in ("max_pool2d", "avg_pool2d"):
        is_max = op == "max_pool2d"
        fill = np.finfo(np.float32).min if is_max else 0

        def windows():
            xp = np.pad(x, ((0, 0), (p, p), (p, p)), constant_values=fill)
            v = sliding_window_view(xp, (k, k), axis=(1, 2))[:, ::s, ::s]
            return v.max(axis=(3, 4)) if is_max else v.mean(axis=(3, 4))

        def shifted():
            xp = np.pad(x, ((0, 0), (p, p), (p, p)), constant_values=fill)
            y = None
            for r in range(k):
                for t in range(k):
                    sl = xp[:, r:r + s * (out - 1) + 1:s, t:t + s * (out - 1) + 1:s]
                    y = sl.copy() if y is None else (np.maximum(y, sl, out=y) if is_max else np.add(y, sl, out=y))
            return y if is_max else y / (k * k)

        return {"max/mean over windows": windows, "shifted slices": shifted}
    if op == "batch_norm":
        mean, var, gamma, beta = rand(c), rand(c) + 0.1, rand(c), rand(c)
        eps = 1e-5

        def direct():
            return (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + eps) * gamma[:, None, None] + beta[:, None, None]

        def folded():
            scale = gamma / np.sqrt(var + eps)
            return x * scale[:, None, None] + (beta - mean * scale)[:, None, None]

        return {"direct": direct, "scale and shift folded": folded}
    raise ValueError(f"unknown op {op}")


def main():
    cases = json.load(sys.stdin)
    for case in cases:
        times = {name: time_ms(fn) for name, fn in variants(case).items()}
        best = min(times, key=times.get)
        print(json.dumps({"ms": times[best], "variant": best, "variants": times}), flush=True)


if __name__ == "__main__":
    main()
