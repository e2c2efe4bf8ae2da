/**
 * lowerTmaCopy: a pipelined copy block annotated `tma_copy` becomes one thread's TMA boxes on a
 * full mbarrier per pipeline version, the consumers wait for the version's phase, and the box
 * follows from the tile's stored layout (`boxOfLayout`); what TMA cannot copy is refused naming
 * the block and the reason. The simulator runs the kernels (packages/simulator/test/mma/
 * wgmma-tma-schedule.test.ts); the search's configurations are in wgmma-space.property.test.ts.
 */
import { SMALL_WGMMA_PARAMS, WGMMA_PARAMS, type WgmmaGemmParams, wgmmaGemmSchedule } from "@tessera/corpus";
import {
  type BufferLoad,
  type BufferStore,
  type Call,
  CP_ASYNC_BULK_TENSOR_2D,
  IRMutator,
  MBARRIER_ARRIVE_EXPECT_TX,
  MBARRIER_INIT,
  MBARRIER_WAIT_PARITY,
  type PrimFunc,
  type Stmt,
  floordiv,
  forEachExpr,
  mul,
  printExpr,
  swizzledOffset,
} from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { codegenCuda, cudaTarget, lower } from "../../src/index.js";
import { boxOfLayout, lowerTmaCopyPass } from "../../src/lower/passes/lower-tma-copy.js";

const H100 = cudaTarget("nvidia/h100");

function calls(root: Parameters<typeof forEachExpr>[0], op: string): Call[] {
  const found: Call[] = [];
  forEachExpr(root, (e) => {
    if (e.kind === "Call" && e.op === op) found.push(e);
  });
  return found;
}

const tmaSchedule = (n: number, params: WgmmaGemmParams) => wgmmaGemmSchedule(n, { ...params, tma: true });

/** The function lowerTmaCopy receives (after planBufferSwizzle). */
function beforeTmaPass(params: WgmmaGemmParams = WGMMA_PARAMS): PrimFunc {
  const m = lower(tmaSchedule(256, params), H100, { recordStages: true });
  return m.stages.find((s) => s.pass === "planBufferSwizzle")!.func;
}

/** Rewrites the store of block `name` (its value, or its indices). */
class EditCopy extends IRMutator {
  constructor(
    private readonly name: string,
    private readonly edit: (st: BufferStore) => BufferStore,
  ) {
    super();
  }

  override visitStmt(s: Stmt): Stmt {
    if (s.kind === "BlockRealize" && s.block.name === this.name && s.block.body.kind === "BufferStore")
      return { ...s, block: { ...s.block, body: this.edit(s.block.body) } };
    return super.visitStmt(s);
  }
}

const edited = (func: PrimFunc, name: string, edit: (st: BufferStore) => BufferStore): PrimFunc => ({
  ...func,
  body: new EditCopy(name, edit).visitStmt(func.body),
});

describe("lowerTmaCopy on the wgmma GEMM schedule", () => {
  it("issues each stage's boxes from one thread after arming the version's barrier with their bytes; every thread waits for the phase", () => {
    const module = lower(tmaSchedule(256, WGMMA_PARAMS), H100);
    const body = module.kernels[0]!.body;
    // 256³ with 128×256×64 stages in 3 versions: 4 stages, the prologue's and the loop body's loads.
    expect(calls(body, MBARRIER_INIT)).toHaveLength(1);
    const armed = calls(body, MBARRIER_ARRIVE_EXPECT_TX);
    expect(armed).toHaveLength(2);
    // A's 128×64 and B's 64×256 fp16 tiles: 48 KiB a stage.
    for (const a of armed) expect(a.args[1]).toMatchObject({ kind: "IntImm", value: 49152 });
    const boxes = calls(body, CP_ASYNC_BULK_TENSOR_2D);
    // A: one 128×64 box; B's MN-major 64-column panels, each its 64 k rows in order: 4 boxes of 64×64.
    expect(boxes).toHaveLength(2 * 5);
    expect(calls(body, MBARRIER_WAIT_PARITY)).toHaveLength(2);
    expect(calls(body, "ptx_cp_async")).toEqual([]);
    const params = module.kernels[0]!.launch.params.filter((p) => p.kind === "tensor_map");
    expect(params.map((p) => [p.name, p.tensorMap?.box, p.tensorMap?.swizzle])).toEqual([
      ["A_tmap", [128, 64], 128],
      ["B_tmap", [64, 64], 128],
    ]);
    const cuda = codegenCuda(module).source;
    expect(cuda).toContain("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes");
    expect(cuda).toContain("const __grid_constant__ tessera_tensor_map A_tmap");
    // TMA writes through the async proxy, as wgmma reads: no proxy fence, no cp.async wait.
    expect(cuda).not.toContain("tessera_fence_proxy_async();");
    expect(cuda).not.toMatch(/tessera_cp_async_(wait_group|16)/);
  });

  it("waits for the version the consumer reads with the parity of its round: instance i in barrier i % V, parity i // V % 2", () => {
    const module = lower(tmaSchedule(256, WGMMA_PARAMS), H100);
    const waits = calls(module.kernels[0]!.body, MBARRIER_WAIT_PARITY).map((w) => `${printExpr((w.args[0] as Call).args[2]!)} / ${printExpr(w.args[1]!)}`);
    // 3 versions, 4 k stages: the loop consumes instances 0–2 (round 0), the epilogue instance 3 in barrier 0's second phase.
    expect(waits).toEqual(["k_0_0 / 0", "0 / 1"]);
  });

  it("refuses a target before sm_90, naming the block", () => {
    expect(() => lower(tmaSchedule(256, WGMMA_PARAMS), "nvidia/a100")).toThrow(
      /lowerTmaCopy: block A_shared\.dyn asks for TMA loads \(tma_copy\), which need sm_90 or newer; target nvidia\/a100 is sm_80/,
    );
  });

  it("refuses a copy that is no producer of an async pipeline stage (nothing would wait for its barrier)", () => {
    expect(() => lower(tmaSchedule(128, SMALL_WGMMA_PARAMS), H100)).toThrow(
      /block A_shared\.dyn is annotated tma_copy but is not a producer of an async stage of a software pipeline/,
    );
  });

  it("refuses a stage that mixes TMA and cp.async copies", () => {
    const sch = wgmmaGemmSchedule(256, WGMMA_PARAMS);
    sch.annotate(sch.getBlock("A_shared.dyn"), "tma_copy", 1);
    expect(() => lower(sch, H100)).toThrow(/block B_shared\.dyn is an async copy of a stage whose other copies are tma_copy blocks/);
  });

  it("refuses a copy that is not the tile plus a fixed origin (a transposed read), naming the block", () => {
    const transposed = edited(beforeTmaPass(), "A_shared.dyn", (st) => {
      const load = st.value as BufferLoad;
      return { ...st, value: { ...load, indices: [load.indices[1]!, load.indices[0]!] } };
    });
    expect(() => lowerTmaCopyPass.run(transposed, { target: H100 })).toThrow(
      /block A_shared\.dyn \(tma_copy\): A\[.*\] is not A_shared\.dyn's element plus a fixed origin \(a non-tile access: .* varies with the copy\)/,
    );
  });

  it("refuses a copy whose loops do not write each element of the tile once", () => {
    const halved = edited(beforeTmaPass(), "B_shared.dyn", (st) => {
      const i = st.indices;
      const col = mul(floordiv(i[2]!, 2), 2);
      const load = st.value as BufferLoad;
      return { ...st, indices: [i[0]!, i[1]!, col], value: { ...load, indices: [load.indices[0]!, mul(floordiv(load.indices[1]!, 2), 2)] } };
    });
    expect(() => lowerTmaCopyPass.run(halved, { target: H100 })).toThrow(
      /block B_shared\.dyn \(tma_copy\): its loops do not write each element of the 64×256 tile once/,
    );
  });
});

describe("boxOfLayout", () => {
  /** A rows × cols fp16 tile stored with the hardware's swizzle of `span`-byte rows. */
  function swizzled(rows: number, cols: number, span: 0 | 32 | 64 | 128 | 256): Int32Array {
    const out = new Int32Array(rows * cols);
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++) {
        const bytes = (r * cols + c) * 2;
        // Chunk bits 4… XOR the row within the pattern: bits 7… for spans up to 128 bytes, bits 8… for 256-byte rows.
        const swz = span === 256 ? ((bytes >> 8) & 15) << 4 : span === 0 ? 0 : ((bytes >> 7) & (span / 16 - 1)) << 4;
        out[r * cols + c] = (bytes ^ swz) / 2;
      }
    return out;
  }

  it("finds the swizzle whose span is the box row and the most rows that divide the tile", () => {
    expect(boxOfLayout(swizzled(128, 64, 128), 128, 64, 2)).toEqual({ swizzle: 128, rows: 128, cols: 64 });
    expect(boxOfLayout(swizzled(64, 32, 64), 64, 32, 2)).toEqual({ swizzle: 64, rows: 64, cols: 32 });
    // 512 rows: at most 256 a box.
    expect(boxOfLayout(swizzled(512, 64, 128), 512, 64, 2)).toEqual({ swizzle: 128, rows: 256, cols: 64 });
    expect(boxOfLayout(swizzled(16, 128, 0), 16, 128, 2)).toEqual({ swizzle: 0, rows: 16, cols: 128 });
  });

  it("lands every element of each box where the layout stores it", () => {
    const stored = swizzled(64, 64, 128);
    const box = boxOfLayout(stored, 64, 64, 2);
    if (typeof box === "string") throw new Error(box);
    for (let r = 0; r < box.rows; r++)
      for (let c = 0; c < box.cols; c++) expect(stored[r * 64 + c]).toBe(swizzledOffset((r * box.cols + c) * 2, box.swizzle) / 2);
  });

  it("refuses a layout no box lands as: rows of 256 bytes swizzled as one span, or unswizzled rows over 256 elements", () => {
    // A 128-byte swizzle span is one box row of 64 fp16; a layout swizzling 256-byte rows stores no such box.
    expect(boxOfLayout(swizzled(16, 128, 256), 16, 128, 2)).toMatch(/no TMA box lands as its 16×128 tile is stored/);
    expect(boxOfLayout(swizzled(4, 512, 0), 4, 512, 2)).toMatch(/no TMA box lands as its 4×512 tile is stored/);
  });
});
