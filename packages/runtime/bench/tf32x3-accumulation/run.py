# Driver of x3.cu (see its header): writes the operands, prints torch SGEMM/TF32 errors, runs ./x3.
import subprocess, sys, torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
for n in (2048, 4096):
    g = torch.Generator().manual_seed(7)
    A = torch.rand(n, n, generator=g) * 2 - 1
    B = torch.rand(n, n, generator=g) * 2 - 1
    A.numpy().tofile("A.bin"); B.numpy().tofile("B.bin")
    Ad, Bd = A.cuda(), B.cuda()
    ref = Ad.double() @ Bd.double()
    s = Ad @ Bd
    print(f"n={n} torch SGEMM (tf32 off) max {(s.double()-ref).abs().max().item():.3e} mean {(s.double()-ref).abs().mean().item():.3e}", flush=True)
    torch.backends.cuda.matmul.allow_tf32 = True
    t = Ad @ Bd
    torch.backends.cuda.matmul.allow_tf32 = False
    print(f"n={n} torch TF32 max {(t.double()-ref).abs().max().item():.3e}", flush=True)
    print(subprocess.run(["./x3", str(n)], capture_output=True, text=True).stdout, flush=True)
