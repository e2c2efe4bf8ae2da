/**
 * bench:gemm-variants' report (bench/gemm-variants-report.ts): variants sorted by median time,
 * untimed ones after them in list order; ratios to the fastest cuBLAS and torch medians of all
 * torch runs that worked; failures shown with their reason.
 */
import { describe, expect, it } from "vitest";
import { summarize } from "../src/index.js";
import type { TorchResult } from "../bench/gpu-handwritten.js";
import { type VariantResult, type VariantsReport, renderVariantsMarkdown, sortedResults, torchBaselines, variantsJson } from "../bench/gemm-variants-report.js";

function timed(name: string, samples: number[]): VariantResult {
  return { name, description: `${name} variant`, params: {}, status: "ok", samplesMs: samples, timing: summarize(samples, 3) };
}

function torchRun(gemm: [number, number], fused: number): TorchResult {
  const g = Math.min(...gemm);
  return {
    ok: true,
    gemm: { median: g, min: g },
    gemmRuns: gemm,
    fused: { median: fused, min: fused },
    torch: "2",
    cuda: "13",
    device: "H100",
    checkOk: true,
    gemmCheckOk: true,
  };
}

function report(results: VariantResult[], torch: TorchResult[]): VariantsReport {
  return { date: "d", mode: "gpu", device: "H100", compiler: "nvrtc", n: 2048, seed: 1, rounds: 5, timing: "t", torch, results };
}

describe("gemm variants report", () => {
  const slow = timed("slow", [0.5, 0.52, 0.51]);
  const fast = timed("fast", [0.36, 0.35, 0.37]);
  const broken: VariantResult = { name: "broken", description: "", params: { tileK: 16 }, status: "error", error: "lower: boom\nmore", samplesMs: [] };
  const r = report([slow, broken, fast], [torchRun([0.34, 0.345], 0.37), { ok: false, reason: "no torch" }, torchRun([0.342, 0.341], 0.365)]);

  it("sorts timed variants by median, then the untimed in list order", () => {
    expect(sortedResults(r).map((x) => x.name)).toEqual(["fast", "slow", "broken"]);
  });

  it("takes the fastest medians of the torch runs that worked as baselines", () => {
    expect(torchBaselines(r)).toEqual({ gemm: 0.34, fused: 0.365, gemmRuns: [0.34, 0.345, 0.342, 0.341], fusedRuns: [0.37, 0.365] });
    expect(torchBaselines(report([fast], [{ ok: false, reason: "x" }]))).toBeUndefined();
  });

  it("renders ratios to cuBLAS and torch, and a failure's first line", () => {
    const md = renderVariantsMarkdown(r);
    const fastRow = md.split("\n").find((l) => l.startsWith("| 1 | fast |"))!;
    expect(fastRow).toContain(`| ${(0.36 / 0.34).toFixed(3)}× | ${(0.36 / 0.365).toFixed(3)}× |`);
    expect(md).toContain("| 3 | broken |");
    expect(md).toContain("ERROR: lower: boom |");
    const json = variantsJson(r) as { cublasMs: number; results: { name: string; ratioToCublas?: number }[] };
    expect(json.cublasMs).toBe(0.34);
    expect(json.results.map((x) => x.name)).toEqual(["fast", "slow", "broken"]);
    expect(json.results[1]!.ratioToCublas).toBeCloseTo(0.51 / 0.34, 12);
    expect(json.results[2]!.ratioToCublas).toBeUndefined();
  });
});
