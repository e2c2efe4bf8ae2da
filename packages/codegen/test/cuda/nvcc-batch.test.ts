/**
 * nvcc-batch.ts without nvcc: the translation unit it writes for several generated modules, the
 * attribution of ptxas' entry functions back to them, and the split of the unit's PTX; and
 * corpus-ptxas.ts' compilation pool, on a stand-in nvcc. That nvcc keeps the modules apart (a
 * helper of one is invisible to another) is checked in corpus-nvcc.test.ts.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scheduleCorpus } from "@tessera/corpus";
import { afterAll, describe, expect, it } from "vitest";
import { codegenCuda } from "../../src/cuda/index.js";
import { lower } from "../../src/lower/pipeline.js";
import { type PtxasKernelRecord, compilationPool } from "./corpus-ptxas.js";
import { type BatchMember, attributeBatchKernels, batchPtxOf, batchTag, batchTranslationUnit, includeLinesOf, topLevelItems } from "./nvcc-batch.js";

/**
 * Corpus schedules lowered for the T4, as batch members (sources nvcc compiles in corpus-nvcc.test.ts):
 * two small kernels and the fast gemm, whose preamble is a guarded helper (the macros undefined).
 * The other gemms' sources have the same shape (a kernel, no headers) and cost seconds to lower.
 */
const MEMBERS = ["vector_add", "window_sum", "gemm_relu_add_fast"];
const members: BatchMember[] = scheduleCorpus()
  .filter((e) => MEMBERS.includes(e.name))
  .map((e) => {
    const module = lower(e.build(), "nvidia/tesla-t4");
    return { file: `${e.name}.cu`, source: codegenCuda(module).source, kernels: module.kernels.map((k) => k.name) };
  });

describe("batchTranslationUnit", () => {
  const unit = batchTranslationUnit(members);
  const lines = unit.split("\n");

  it("holds each module's text line for line after #line 1 naming its file, in a namespace of its own", () => {
    expect(members.map((m) => m.file)).toEqual(MEMBERS.map((n) => `${n}.cu`));
    members.forEach((m, i) => {
      const at = lines.indexOf(`#line 1 "${m.file}"`);
      expect(at, m.file).toBeGreaterThan(0);
      const own = m.source.split("\n");
      expect(lines.slice(at + 1, at + 1 + own.length), m.file).toEqual(own.map((l) => (/^\s*#\s*include\b/.test(l) ? "" : l)));
      const opened = lines.lastIndexOf(`namespace ${batchTag(i)} {`, at);
      expect(opened, m.file).toBeGreaterThanOrEqual(0);
      expect(lines.indexOf(`}  // namespace ${batchTag(i)}`, at + own.length), m.file).toBeGreaterThan(at);
    });
  });

  it("renames each module's kernels to its prefix, and undefines them and every macro it defines after its text", () => {
    members.forEach((m, i) => {
      const at = lines.indexOf(`#line 1 "${m.file}"`);
      const end = lines.indexOf(`}  // namespace ${batchTag(i)}`, at);
      for (const k of m.kernels) {
        expect(lines.slice(0, at), m.file).toContain(`#define ${k} ${batchTag(i)}${k}`);
        expect(lines.slice(at, end), m.file).toContain(`#undef ${k}`);
      }
      const defined = m.source.split("\n").flatMap((l) => /^\s*#\s*define\s+(\w+)/.exec(l)?.[1] ?? []);
      for (const d of defined) expect(lines.slice(at + m.source.split("\n").length, end), `${m.file}: ${d}`).toContain(`#undef ${d}`);
    });
    // The corpus' preambles are guarded helpers: the check above is not vacuous.
    expect(members.some((m) => /#define TESSERA_\w+/.test(m.source))).toBe(true);
  });

  it("includes the members' headers once, before the first module, and refuses members that include other headers", () => {
    const withHeader = (m: BatchMember): BatchMember => ({ ...m, source: `#include <mma.h>\n${m.source}` });
    const both = batchTranslationUnit(members.slice(0, 2).map(withHeader)).split("\n");
    expect(both.filter((l) => l === "#include <mma.h>")).toHaveLength(1);
    expect(both.indexOf("#include <mma.h>")).toBeLessThan(both.indexOf(`namespace ${batchTag(0)} {`));
    expect(includeLinesOf(withHeader(members[0]!).source)).toEqual(["#include <mma.h>"]);
    expect(() => batchTranslationUnit([withHeader(members[0]!), members[1]!])).toThrow(/includes other headers than/);
  });
});

describe("attributeBatchKernels", () => {
  const record = (kernel: string, registers: number): PtxasKernelRecord => ({
    kernel,
    arch: "sm_90",
    registers,
    sharedBytes: 0,
    stackFrameBytes: 0,
    spillStoreBytes: 0,
    spillLoadBytes: 0,
    compileMs: undefined,
  });

  it("gives each entry function to the module whose prefix it carries, under the kernel's own name", () => {
    // Module 1's prefix is a prefix of module 11's names only with its digit: tessera_batch_1_ ≠ tessera_batch_11_.
    const ms: BatchMember[] = Array.from({ length: 12 }, (_, i) => ({ file: `m${i}.cu`, source: "", kernels: i === 1 ? ["k", "k_1"] : ["k"] }));
    const r = attributeBatchKernels(
      [record("tessera_batch_11_k", 11), record("tessera_batch_1_k_1", 2), record("tessera_batch_1_k", 1), record("other", 0)],
      ms,
    );
    expect(r.perMember[11]).toEqual([record("k", 11)]);
    expect(r.perMember[1]).toEqual([record("k_1", 2), record("k", 1)]);
    expect(r.perMember[0]).toEqual([]);
    expect(r.unattributed).toEqual(["other"]);
  });
});

/** nvcc 13.0's PTX (-arch=sm_90) of a two-module batch: module 0's kernel with a shared array, module 1's calling a function of its own. */
const PTX = `//
// Generated by NVIDIA NVVM Compiler
//

.version 9.0
.target sm_90
.address_size 64

	// .globl	tessera_batch_0_k
.func  (.param .b32 func_retval0) _ZN16tessera_batch_1_1fEf
(
	.param .b32 _ZN16tessera_batch_1_1fEf_param_0
)
;
// _ZZ17tessera_batch_0_kE1s has been demoted
.extern .shared .align 16 .b8 dyn[];

.visible .entry tessera_batch_0_k(
	.param .u64 tessera_batch_0_k_param_0
)
.maxntid 64, 1, 1
{
	.reg .f32 	%f<15>;
	// demoted variable
	.shared .align 4 .b8 _ZZ17tessera_batch_0_kE1s[256];
	bar.sync 	0;
	ret;

}
	// .globl	tessera_batch_1_k
.visible .entry tessera_batch_1_k(
	.param .u64 tessera_batch_1_k_param_0
)
{
	.reg .f32 	%f<7>;
	st.shared.u32 	[dyn], %r1;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	call.uni (retval0), 
	_ZN16tessera_batch_1_1fEf, 
	(
	param0
	);
	} // callseq 0
	ret;

}
.func  (.param .b32 func_retval0) _ZN16tessera_batch_1_1fEf(
	.param .b32 _ZN16tessera_batch_1_1fEf_param_0
)
{
	mul.f32 	%f2, %f1, %f1;
	ret;

}
`;

describe("batchPtxOf", () => {
  it("splits PTX into top-level items without losing a line", () => {
    const items = topLevelItems(PTX);
    expect(items.join("\n")).toBe(PTX);
    expect(items.filter((i) => /\.entry/.test(i))).toHaveLength(2);
  });

  it("gives a module the header, the shared declarations and its own items only", () => {
    const zero = batchPtxOf(PTX, 0, 2);
    const one = batchPtxOf(PTX, 1, 2);
    for (const part of [zero, one]) {
      expect(part).toMatch(/^\.target sm_90$/m);
      expect(part).toMatch(/^\.extern \.shared \.align 16 \.b8 dyn\[\];$/m);
    }
    expect(zero).toMatch(/\.entry tessera_batch_0_k\(/);
    expect(zero).toMatch(/bar\.sync/);
    expect(zero).not.toMatch(/tessera_batch_1_|mul\.f32/);
    expect(one).toMatch(/\.entry tessera_batch_1_k\(/);
    expect(one.match(/_ZN16tessera_batch_1_1fEf\(/g)).toHaveLength(1);
    expect(one).toMatch(/mul\.f32/);
    expect(one).not.toMatch(/bar\.sync|\.entry tessera_batch_0_k/);
  });
});

describe("compilationPool", () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-nvcc-pool-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // A stand-in for `nvcc -arch=… -cubin --keep -Xptxas -v FILE…`: records its command line, and per file writes
  // the PTX and prints ptxas' report of each entry function (a batch's renamed ones: its #define lines).
  const calls = join(dir, "calls.log");
  const nvcc = join(dir, "fake-nvcc.mjs");
  writeFileSync(
    nvcc,
    `#!${process.execPath}
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
const args = process.argv.slice(2);
appendFileSync(${JSON.stringify(calls)}, args.join(" ") + "\\n");
const arch = args[0].replace(/^-arch=/, "");
for (const file of args.filter((a) => a.endsWith(".cu"))) {
  const text = readFileSync(file, "utf8");
  const renamed = [...text.matchAll(/^#define \\w+ (tessera_batch_\\d+_\\w+)$/gm)].map((m) => m[1]);
  const kernels = renamed.length > 0 ? renamed : [...text.matchAll(/__global__ void (?:__launch_bounds__\\([^)]*\\) )?(\\w+)\\(/g)].map((m) => m[1]);
  console.log("ptxas info    : 0 bytes gmem");
  kernels.forEach((k, i) => {
    console.log("ptxas info    : Compiling entry function '" + k + "' for '" + arch + "'");
    console.log("    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads");
    console.log("ptxas info    : Used " + (10 + i) + " registers, used 0 barriers, 0 bytes smem");
  });
  writeFileSync(file.replace(/\\.cu$/, ".ptx"), ".version 8.0\\n.target " + arch + "\\n.address_size 64\\n" + kernels.map((k) => ".visible .entry " + k + "()\\n{\\n\\tret;\\n}\\n").join(""));
}
`,
  );
  chmodSync(nvcc, 0o755);
  const asModule = (name: string) => {
    const e = scheduleCorpus().find((c) => c.name === name)!;
    return { label: name, file: `${name}.cu`, module: lower(e.build(), "nvidia/tesla-t4") };
  };
  const pool = compilationPool(nvcc, dir);
  const first = pool.add([asModule("vector_add")], ["sm_75", "sm_90"]);
  const second = pool.add([asModule("window_sum")], ["sm_90"]);

  it("compiles the groups registered for an architecture in one run, each group's report its own modules'", async () => {
    const [a, b] = await Promise.all([first("sm_90"), second("sm_90")]);
    // Both modules have the same (no) headers: one translation unit, one nvcc run for both groups.
    expect(readFileSync(calls, "utf8").trim().split("\n")).toEqual(["-arch=sm_90 -cubin --keep -Xptxas -v tessera_batch_0.cu"]);
    expect(a.perModule.map((ks) => ks.map((k) => k.kernel))).toEqual([asModule("vector_add").module.kernels.map((k) => k.name)]);
    expect(b.perModule.map((ks) => ks.map((k) => k.kernel))).toEqual([asModule("window_sum").module.kernels.map((k) => k.name)]);
    expect(b.ptxOf(0)).toContain(`.entry ${batchTag(1)}${asModule("window_sum").module.kernels[0]!.name}(`);
    expect(b.ptxOf(0)).not.toContain(batchTag(0));
    expect([a.exitCode, b.exitCode]).toEqual([0, 0]);
    expect(b.log).toContain(`Compiling entry function '${batchTag(1)}`);
  });

  it("compiles an architecture only for the groups registered for it, and refuses the others", async () => {
    const a = await first("sm_75");
    expect(readFileSync(calls, "utf8").trim().split("\n").at(-1)).toBe("-arch=sm_75 -cubin --keep -Xptxas -v vector_add.cu");
    expect(a.perModule[0]?.map((k) => k.arch)).toEqual(["sm_75"]);
    await expect(second("sm_75")).rejects.toThrow("compilationPool: sm_75 is not an architecture these modules were registered for (sm_90)");
  });

  it("refuses a group registered after its architecture's compilation started (it would be left out)", async () => {
    const late = pool.add([asModule("window_sum")], ["sm_90"]);
    await expect(late("sm_90")).rejects.toThrow("compilationPool: window_sum was registered after sm_90's compilation started");
  });
});
