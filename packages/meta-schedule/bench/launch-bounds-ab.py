# Times the launch-bounds variants that launch-bounds-variants.ts compiled into DIR (run
# on a GPU host with PyTorch): each program's kernels (the same CUDA under different
# __launch_bounds__) interleaved, seven medians of 20 launches each, on the gemm+ReLU+add 2048^3
# operands; checks each kernel's D against torch relu(A @ B) + C; times cuBLAS SGEMM (torch.mm,
# TF32 off) in the same run.
#
#   python3 launch-bounds-ab.py DIR    (DIR: launch-bounds-variants.ts's --out; writes DIR/ab.json, or $OUT/ab.json)
import ctypes, json, statistics, sys, os
if len(sys.argv) != 2 or not os.path.isfile(os.path.join(sys.argv[1], "manifest.json")):
    sys.exit("usage: python3 launch-bounds-ab.py DIR (a folder written by launch-bounds-variants.ts, with its manifest.json)")
here = sys.argv[1]
import torch
torch.backends.cuda.matmul.allow_tf32 = False
cuda = ctypes.CDLL("libcuda.so.1")
cuda.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
N = 2048
g = torch.Generator(device="cuda").manual_seed(0)
A = torch.randn(N, N, device="cuda", generator=g); B = torch.randn(N, N, device="cuda", generator=g); C = torch.randn(N, N, device="cuda", generator=g)
D = torch.empty(N, N, device="cuda")
ref = torch.relu(A @ B) + C
torch.cuda.synchronize()
def chk(r, what):
    if r != 0: raise RuntimeError(f"{what}: CUDA error {r}")
ptrs = [ctypes.c_uint64(t.data_ptr()) for t in (A, B, C, D)]
params = (ctypes.c_void_p * 4)(*[ctypes.cast(ctypes.byref(p), ctypes.c_void_p) for p in ptrs])
stream = torch.cuda.current_stream().cuda_stream
def load(path, name):
    mod = ctypes.c_void_p(); chk(cuda.cuModuleLoad(ctypes.byref(mod), path.encode()), path)
    fn = ctypes.c_void_p(); chk(cuda.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()), name)
    return fn
def timed(fn_launch, reps=20):
    s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(reps): fn_launch()
    e.record(); e.synchronize()
    return s.elapsed_time(e) / reps
def cublas():
    out = torch.empty(N, N, device="cuda")
    f = lambda: torch.mm(A, B, out=out)
    for _ in range(5): f()
    return statistics.median(timed(f) for _ in range(7))
manifest = json.load(open(os.path.join(here, "manifest.json")))
results = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cublas": [cublas()], "programs": []}
for k, p in enumerate(manifest):
    launch = p["launch"]
    grid, block = launch["grid"][0], launch["block"][0]
    fns = {name: load(os.path.join(here, f"p{p['id']}.cubin"), name) for name in p["kernels"]}
    errs = {}
    for name, fn in fns.items():
        D.zero_()
        chk(cuda.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, ctypes.c_void_p(stream), params, None), name)
        torch.cuda.synchronize()
        errs[name] = float((D - ref).abs().max())
        for _ in range(3): cuda.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, ctypes.c_void_p(stream), params, None)
    times = {name: [] for name in fns}
    for rep in range(7):
        for name, fn in fns.items():
            times[name].append(timed(lambda: cuda.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, ctypes.c_void_p(stream), params, None)))
    results["programs"].append({**p, "ms": {n: statistics.median(t) for n, t in times.items()}, "maxAbsErr": errs})
    if k % 12 == 11: results["cublas"].append(cublas())
    print(p["id"], {n: round(statistics.median(t), 4) for n, t in times.items()}, {n: round(e, 4) for n, e in errs.items()}, flush=True)
results["cublas"].append(cublas())
print("cublas ms", [round(x, 4) for x in results["cublas"]])
json.dump(results, open(os.path.join(os.environ.get("OUT", here), "ab.json"), "w"), indent=1)
