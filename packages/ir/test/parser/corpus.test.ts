import { describe, expect, it } from "vitest";
import { parsePrimFunc, parseTVMScript } from "../../src/parser/index.js";
import { paramBuffers } from "../../src/func.js";
import type { BufferRegion, Stmt } from "../../src/stmt.js";
import type { PrimExpr } from "../../src/expr.js";
import { blockNamed, corpusFiles, readCorpus } from "./helpers.js";

/** `A[vi, vk]`-style text of a region, names only, for compact assertions. */
function regionText(r: BufferRegion): string {
  const dims = r.region.map((rg) => (rg.extent.kind === "IntImm" && rg.extent.value === 1 ? exprName(rg.min) : `${exprName(rg.min)}+${exprName(rg.extent)}`));
  return `${r.buffer.name}[${dims.join(", ")}]`;
}

function exprName(e: PrimExpr): string {
  if (e.kind === "Var") return e.name;
  if (e.kind === "IntImm" || e.kind === "FloatImm") return String(e.value);
  return e.kind;
}

function rootBody(body: Stmt): Stmt {
  if (body.kind !== "BlockRealize" || body.block.name !== "root") throw new Error("expected a root block");
  return body.block.body;
}

describe("TVMScript corpus", () => {
  it.each(corpusFiles())("parses %s", (file) => {
    const mod = parseTVMScript(readCorpus(file), { fileName: file });
    expect(mod.functions.size).toBeGreaterThan(0);
  });

  it("gemm_relu_add: root block, remap kinds, bindings and inferred regions", () => {
    const f = parsePrimFunc(readCorpus("gemm_relu_add.py"));
    expect(paramBuffers(f).map((b) => [b.name, b.shape.map(exprName)])).toEqual([
      ["A", ["2048", "2048"]],
      ["B", ["2048", "2048"]],
      ["C", ["2048", "2048"]],
      ["D", ["2048", "2048"]],
    ]);
    expect(f.body.kind).toBe("BlockRealize");
    if (f.body.kind !== "BlockRealize") return;
    const root = f.body.block;
    expect(root.name).toBe("root");
    expect(root.iterVars).toEqual([]);
    expect(root.reads).toEqual([]);
    expect(root.allocBuffers.map((b) => b.name)).toEqual(["matmul", "relu"]);

    const gemm = blockNamed(f.body, "gemm");
    expect(gemm.block.iterVars.map((iv) => iv.iterType)).toEqual(["spatial", "spatial", "reduce"]);
    expect(gemm.iterValues.map(exprName)).toEqual(["i", "j", "k"]);
    expect(gemm.block.iterVars.map((iv) => exprName(iv.dom.extent))).toEqual(["2048", "2048", "2048"]);
    // The init writes matmul, so matmul is not among the reads.
    expect(gemm.block.reads.map(regionText)).toEqual(["A[vi, vk]", "B[vk, vj]"]);
    expect(gemm.block.writes.map(regionText)).toEqual(["matmul[vi, vj]"]);
    expect(gemm.block.init?.kind).toBe("BufferStore");
    const add = blockNamed(f.body, "add");
    expect(add.block.reads.map(regionText)).toEqual(["relu[vi, vj]", "C[vi, vj]"]);
    // The grid becomes three nested serial loops.
    const outer = rootBody(f.body);
    expect(outer.kind).toBe("SeqStmt");
    if (outer.kind !== "SeqStmt") return;
    const loop = outer.seq[0]!;
    expect(loop.kind === "For" && loop.loopVar.name === "i" && loop.body.kind === "For" && loop.body.loopVar.name).toBe("j");
  });

  it("printed_module: explicit reads/writes are kept, func_attr is read, and the key is the def name", () => {
    const mod = parseTVMScript(readCorpus("printed_module.py"));
    expect([...mod.functions.keys()]).toEqual(["main"]);
    const f = mod.functions.get("main")!;
    expect(f.attrs).toEqual({ global_symbol: "gemm_relu_add", "tir.noalias": true });
    const gemm = blockNamed(f.body, "gemm");
    expect(gemm.block.reads.map(regionText)).toEqual(["A[vi, vk]", "B[vk, vj]"]);
    const init = gemm.block.init;
    expect(init?.kind === "BufferStore" && init.value).toEqual({ kind: "FloatImm", dtype: "float32", value: 0 });
  });

  it("two_functions: an IRModule with two functions keyed by name", () => {
    const mod = parseTVMScript(readCorpus("two_functions.py"));
    expect([...mod.functions.keys()]).toEqual(["scale", "main"]);
    expect(mod.functions.get("main")!.attrs).toEqual({ global_symbol: "main" });
  });

  it("loop_kinds: every loop kind, thread tags, annotations and ranges with a minimum", () => {
    const f = parsePrimFunc(readCorpus("loop_kinds.py"));
    const loops: { name: string; kind: string; tag?: string | undefined; min: string; extent: string }[] = [];
    const visit = (s: Stmt): void => {
      if (s.kind === "BlockRealize") return visit(s.block.body);
      if (s.kind === "SeqStmt") return s.seq.forEach(visit);
      if (s.kind !== "For") return;
      loops.push({ name: s.loopVar.name, kind: s.forKind, tag: s.threadTag, min: exprName(s.min), extent: exprName(s.extent) });
      visit(s.body);
    };
    visit(f.body);
    expect(loops).toEqual([
      { name: "bx", kind: "thread_binding", tag: "blockIdx.x", min: "0", extent: "4" },
      { name: "tx", kind: "thread_binding", tag: "threadIdx.x", min: "0", extent: "8" },
      { name: "i", kind: "parallel", tag: undefined, min: "0", extent: "16" },
      { name: "j0", kind: "serial", tag: undefined, min: "0", extent: "2" },
      { name: "j1", kind: "unrolled", tag: undefined, min: "0", extent: "4" },
      { name: "j2", kind: "vectorized", tag: undefined, min: "0", extent: "4" },
      { name: "i", kind: "serial", tag: undefined, min: "2", extent: "2" },
      { name: "j", kind: "serial", tag: undefined, min: "0", extent: "8" },
    ]);
    const shifted = blockNamed(f.body, "shifted");
    expect(exprName(shifted.block.iterVars[0]!.dom.min)).toBe("2");
    expect(exprName(shifted.block.iterVars[0]!.dom.extent)).toBe("2");
  });

  it("where_predicate: T.where becomes the realize predicate", () => {
    const f = parsePrimFunc(readCorpus("where_predicate.py"));
    const b = blockNamed(f.body, "B");
    expect(b.predicate.kind === "Binary" && b.predicate.op).toBe("lt");
  });

  it("alloc_in_block: the allocation belongs to the block, block_attr to its annotations", () => {
    const f = parsePrimFunc(readCorpus("alloc_in_block.py"));
    expect(f.body.kind === "BlockRealize" && f.body.block.allocBuffers).toEqual([]);
    const outer = blockNamed(f.body, "outer").block;
    expect(outer.allocBuffers.map((b) => [b.name, b.scope])).toEqual([["row", "local"]]);
    expect(outer.annotations).toEqual({ "meta_schedule.tiling_structure": "SSRSRS" });
    expect(outer.reads.map(regionText)).toEqual(["A[vi, 0+16]"]);
  });

  it("match_buffer: handle parameters map to buffers; block-level matches record their source region", () => {
    const f = parsePrimFunc(readCorpus("match_buffer.py"));
    expect(f.params.map((p) => [p.name, p.dtype])).toEqual([
      ["a", "handle"],
      ["b", "handle"],
    ]);
    const [A, B] = paramBuffers(f);
    expect([A!.offsetFactor, B!.dataAlignment]).toEqual([1, 128]);
    const tile = blockNamed(f.body, "tile").block;
    expect(tile.matchBuffers.map((m) => [m.buffer.name, m.source.buffer === A, m.source.region.map((r) => exprName(r.extent))])).toEqual([
      ["A_sub", true, ["16", "16"]],
      ["B_sub", false, ["16", "16"]],
    ]);
  });

  it("symbolic_shapes: n = T.int32() and scalar parameters become the shape variables", () => {
    const f = parsePrimFunc(readCorpus("symbolic_shapes.py"));
    const m = f.params[2]!;
    expect([m.name, m.dtype]).toEqual(["m", "int32"]);
    const [A, B] = paramBuffers(f);
    expect(A!.shape[1]).toBe(m);
    expect(A!.shape[0]!.kind === "Var" && A!.shape[0]).toBe(B!.shape[0]);
  });

  it("float16_literal: a bare float literal takes the dtype of the buffer it is stored into", () => {
    const f = parsePrimFunc(readCorpus("float16_literal.py"));
    const store = blockNamed(f.body, "fill").block.body;
    expect(store.kind === "BufferStore" && store.value).toEqual({ kind: "FloatImm", dtype: "float16", value: 0 });
  });

  it("lowered: no root block; launch_thread, allocate views, attr and let", () => {
    const f = parsePrimFunc(readCorpus("lowered.py"));
    expect(f.attrs).toEqual({ "tir.noalias": true });
    const s = f.body;
    expect(s.kind === "AttrStmt" && [s.key, s.node?.name]).toEqual(["thread_extent", "blockIdx.x"]);
    if (s.kind !== "AttrStmt" || s.body.kind !== "Allocate") throw new Error("expected an allocation");
    const alloc = s.body;
    expect([alloc.buffer.scope, alloc.buffer.dtype]).toEqual(["shared", "float32"]);
    const launch = alloc.body;
    if (launch.kind !== "AttrStmt") throw new Error("expected launch_thread");
    expect(launch.node?.name).toBe("threadIdx.x");
    const seq = launch.body;
    if (seq.kind !== "SeqStmt") throw new Error("expected a sequence");
    // The T.Buffer view of the allocation is the allocated buffer itself.
    expect(seq.seq[0]!.kind === "BufferStore" && seq.seq[0]!.buffer).toBe(alloc.buffer);
    expect(seq.seq[1]!.kind === "Evaluate" && seq.seq[1]!.value.kind === "Call" && seq.seq[1]!.value.op).toBe("tvm_storage_sync");
    const attr = seq.seq[2]!;
    expect(attr.kind === "AttrStmt" && [attr.key, attr.node === alloc.buffer.data]).toEqual(["storage_alignment", true]);
  });
});

describe("TVMScript corpus: HEAD spellings", () => {
  it("sblock_spelling: T.sblock, T.sblock_alloc_buffer, T.sblock_attr and scan/opaque iterators", () => {
    const f = parsePrimFunc(readCorpus("sblock_spelling.py"));
    const outer = blockNamed(f.body, "outer").block;
    expect(outer.iterVars.map((iv) => iv.iterType)).toEqual(["opaque"]);
    expect(outer.allocBuffers.map((b) => b.name)).toEqual(["acc"]);
    expect(outer.annotations).toEqual({ note: [1, 2.5, "x"], nested: { flag: false } });
    const scan = blockNamed(f.body, "scan");
    expect(scan.block.iterVars.map((iv) => iv.iterType)).toEqual(["scan", "reduce"]);
    expect(scan.iterValues.map(exprName)).toEqual(["i", "0"]);
  });
});
