// usedIdentifiers, which the outliner relies on, is tested with the executor (packages/ir/test/exec/outline-loops.property.test.ts).
import { describe, expect, it } from "vitest";
import { compileKernel } from "../src/compile-kernel.js";
import { simulate } from "../src/index.js";
import { moduleFromLoweredScript, tiledGemmKernel } from "./helpers.js";

/** Each thread: for i in 0..2 { local L[1]; if i == 0: L[0] = 7; out[t * 2 + i] = L[0] } — the second entry reads L unwritten. */
const freshLocalPerEntry = `
@T.prim_func
def main(out: T.Buffer((8,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
    for i in range(2):
        L = T.allocate([1], "float32", "local")
        L_1 = T.Buffer((1,), data=L, scope="local")
        if i == 0:
            L_1[0] = T.float32(7)
        out[threadIdx_x * 2 + i] = L_1[0]
`;

describe("loops taken out of the generator", () => {
  it("leave the barriers in the generator and take the barrier-free loops out (the manual gemm's shape)", () => {
    const module = moduleFromLoweredScript(tiledGemmKernel(128));
    const compiled = compileKernel(module.kernels[0]!, { detectRaces: true });
    const generator = compiled.source.slice(compiled.source.indexOf("function*"));
    expect(generator).toContain("yield 0;");
    expect(generator).toContain("yield 1;");
    // The k-chunk loop holds the barriers and stays; the fetch, update and write-back loops go.
    expect(generator.match(/\bfor \(/g)).toHaveLength(1);
    expect(compiled.source.match(/^function \$loop/gm)?.length).toBeGreaterThanOrEqual(3);
  });

  it("poison a local allocation of an outlined loop at every entry, as a fresh one is", () => {
    const module = moduleFromLoweredScript(freshLocalPerEntry);
    const compiled = compileKernel(module.kernels[0]!, { detectRaces: false });
    expect(compiled.source).toMatch(/function \$loop/);
    const out = new Float32Array(8).fill(-1);
    simulate(module, [out]);
    for (let t = 0; t < 4; t++) {
      expect(out[t * 2]).toBe(7);
      expect(out[t * 2 + 1]).toBeNaN();
    }
  });
});
