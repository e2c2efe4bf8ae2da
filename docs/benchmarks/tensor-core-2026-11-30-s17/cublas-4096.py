# cuBLAS TF32 and HGEMM at 4096³ through torch, for ncu (which kernels, tile and cluster shape, metrics).
import torch
n = 4096
torch.backends.cuda.matmul.allow_tf32 = True
a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
for _ in range(3):
    c = a @ b
h, g = a.half(), b.half()
for _ in range(3):
    d = h @ g
torch.cuda.synchronize()
