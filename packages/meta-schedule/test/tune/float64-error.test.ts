/**
 * bench:tune's accuracy check (bench/float64-error.ts): the torch script against a stand-in `torch`
 * that computes for real on small matrices (float64 sums; a float32 tensor's results rounded to
 * float32), so that the errors it reports are checked against errors the test put there; and the
 * shape check of the functions it takes.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gemmReluAdd, matmul } from "@tessera/ir";
import { afterAll, describe, expect, it } from "vitest";
import { float64ErrorsOf, gemmReluAddShape } from "../../bench/float64-error.js";
import { withFp32Precision } from "../../src/index.js";

const python = spawnSync("python3", ["--version"]).status === 0;

/** What the script calls, computed: a float32 tensor's every result rounded to float32, a float64 one's kept. */
const STAND_IN = `
import struct
__version__ = "stand-in"
float32, float64 = "float32", "float64"
def f32(x): return struct.unpack("f", struct.pack("f", x))[0]
class Tensor:
    def __init__(self, rows, dtype):
        self.rows, self.dtype = rows, dtype
        if dtype == float32: self.rows = [[f32(x) for x in r] for r in rows]
    def reshape(self, r, c):
        flat = [x for row in self.rows for x in row]
        assert len(flat) == r * c, "reshape to %dx%d of %d values" % (r, c, len(flat))
        return Tensor([flat[i * c:(i + 1) * c] for i in range(r)], self.dtype)
    def cuda(self): return self
    def double(self): return Tensor(self.rows, float64)
    def __matmul__(self, o):
        assert len(self.rows[0]) == len(o.rows), "matmul of %dx%d and %dx%d" % (len(self.rows), len(self.rows[0]), len(o.rows), len(o.rows[0]))
        return Tensor([[sum(a * o.rows[k][j] for k, a in enumerate(r)) for j in range(len(o.rows[0]))] for r in self.rows], self.dtype)
    def _zip(self, o, f): return Tensor([[f(a, b) for a, b in zip(r, s)] for r, s in zip(self.rows, o.rows)], self.dtype)
    def __add__(self, o): return self._zip(o, lambda a, b: a + b)
    def __sub__(self, o): return self._zip(o, lambda a, b: a - b)
    def abs(self): return Tensor([[abs(a) for a in r] for r in self.rows], self.dtype)
    def max(self): return Tensor([[max(max(r) for r in self.rows)]], self.dtype)
    def item(self): return self.rows[0][0]
def frombuffer(raw, dtype):
    assert dtype == float32
    return Tensor([list(struct.unpack("%df" % (len(raw) // 4), bytes(raw)))], float32)
def relu(x): return Tensor([[max(a, 0.0) for a in r] for r in x.rows], x.dtype)
class backends:
    class cuda:
        class matmul:
            allow_tf32 = True
class cuda:
    @staticmethod
    def get_device_name(i): return "stand-in"
`;

describe.skipIf(!python)("bench:tune's float64 error check", () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-float64-error-test-"));
  mkdirSync(join(dir, "torch"));
  writeFileSync(join(dir, "torch", "__init__.py"), STAND_IN);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reports ours' and SGEMM's max |error| against the float64 reference of relu(A·B) + C, for m, n and k all different", async () => {
    const [m, n, k] = [3, 5, 4];
    const value = (i: number) => Math.fround(Math.sin(1.7 * i + 0.3) * 1.5);
    const A = Float32Array.from({ length: m * k }, (_, i) => value(i));
    const B = Float32Array.from({ length: k * n }, (_, i) => value(100 + i));
    const C = Float32Array.from({ length: m * n }, (_, i) => value(200 + i));
    // Ours: the float64 result rounded to float32, one element off by 0.25 (an element whose true value is positive).
    const exact = Array.from({ length: m * n }, (_, e) => {
      const [i, j] = [Math.trunc(e / n), e % n];
      let s = 0;
      for (let q = 0; q < k; q++) s += A[i * k + q]! * B[q * n + j]!;
      return Math.max(s, 0) + C[e]!;
    });
    const D = Float32Array.from(exact);
    const wrong = exact.findIndex((x) => x > 1);
    D[wrong] = D[wrong]! + 0.25;

    const errors = await float64ErrorsOf({ A, B, C, D }, { m, n, k }, "python3", { PYTHONPATH: dir });
    if ("skipped" in errors) throw new Error(errors.skipped);
    expect(errors.ours).toBeCloseTo(0.25, 5);
    // SGEMM's float32 result: rounding only, far below the planted error, and not zero.
    expect(errors.sgemm).toBeGreaterThan(0);
    expect(errors.sgemm).toBeLessThan(1e-5);
    expect(errors.device).toBe("stand-in");
  });

  it("says why when torch fails, rather than a number", async () => {
    const one = new Float32Array(1);
    const errors = await float64ErrorsOf({ A: one, B: one, C: one, D: one }, { m: 2, n: 1, k: 1 }, "python3", { PYTHONPATH: dir });
    expect(errors).toEqual({ skipped: expect.stringMatching(/^torch's float64 reference failed: .*reshape to 2x1 of 1 values/) });
  });

  it("says so when the script prints no result (a torch that prints a warning and nothing else)", async () => {
    const quiet = mkdtempSync(join(tmpdir(), "tessera-float64-error-quiet-"));
    mkdirSync(join(quiet, "json"));
    // A json module whose dumps writes nothing: the script then ends with only the warning printed.
    writeFileSync(join(quiet, "json", "__init__.py"), 'import sys\nprint("warning: stand-in")\ndef dumps(x): return ""\n');
    const one = new Float32Array(1);
    try {
      const errors = await float64ErrorsOf({ A: one, B: one, C: one, D: one }, { m: 1, n: 1, k: 1 }, "python3", { PYTHONPATH: `${quiet}:${dir}` });
      expect(errors).toEqual({ skipped: expect.stringMatching(/^torch's float64 reference printed no result: warning: stand-in/) });
    } finally {
      rmSync(quiet, { recursive: true, force: true });
    }
  });
});

describe("gemmReluAddShape", () => {
  it("reads m, n and k of a gemm+ReLU+add, rewritten in 3xTF32 or not, and refuses other functions by their parameters", () => {
    expect(gemmReluAddShape(gemmReluAdd(64).func)).toEqual({ m: 64, n: 64, k: 64 });
    expect(gemmReluAddShape(withFp32Precision(gemmReluAdd(64).func, "3xtf32"))).toEqual({ m: 64, n: 64, k: 64 });
    expect(() => gemmReluAddShape(matmul(8, 4, 2).func)).toThrow(
      /float64 error check: expected float32 parameters A \(m×k\), B \(k×n\), C and D \(m×n\), got float32\[8×2\], float32\[2×4\], float32\[8×4\]/,
    );
  });
});
