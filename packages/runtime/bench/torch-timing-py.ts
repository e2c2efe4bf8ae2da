/**
 * How the benches time a torch baseline, as Python for their `python3 -c` scripts (bench:tc's
 * tc-torch-script.ts, bench:tune's torch-baselines.ts): one copy of each protocol, so both benches
 * compare with the vendor library timed the same way.
 * - `burst_ms(fn, start, end)`: CUDA events around 3 runs, 10 repeats after 10 warm-ups, the median
 *   per run — ~40 runs, at the clocks a GPU has after idling;
 * - `evaluator_ms(fn, start, end, number, repeat, min_ms)`: timeEvaluator's protocol (TVM's
 *   time_evaluator): samples of `number` back-to-back runs, `number` growing to
 *   max(min_ms / per-run + 1, 1.618 · number) until a sample lasts min_ms; the median of `repeat`
 *   samples. On an H200 a GEMM run back to back for a second sits at the 700 W cap, at lower clocks
 *   than a burst (docs/benchmarks/tensor-core-2026-11-30-s17), so this is the like-for-like figure
 *   for a kernel timed by timeEvaluator.
 * `start` and `end` are torch.cuda.Event(enable_timing=True).
 */
export const TORCH_TIMING_PY = `
def burst_ms(fn, start, end):
    for _ in range(10): fn()
    times = []
    for _ in range(10):
        start.record()
        for _ in range(3): fn()
        end.record(); torch.cuda.synchronize(); times.append(start.elapsed_time(end) / 3)
    times.sort()
    return times[len(times) // 2]
def evaluator_ms(fn, start, end, number, repeat, min_ms):
    samples = []
    for _ in range(repeat):
        duration = 0.0
        while True:
            if duration > 0: number = int(max(min_ms / (duration / number) + 1, number * 1.618))
            start.record()
            for _ in range(number): fn()
            end.record(); torch.cuda.synchronize(); duration = start.elapsed_time(end)
            if duration >= min_ms: break
        samples.append(duration / number)
    samples.sort()
    return (samples[(repeat - 1) // 2] + samples[repeat // 2]) / 2
`;
