/**
 * bench:gemm-variants' variant list (bench/gemm-variant-list.ts): the built-in variants are valid
 * fast schedules at 2048³ with distinct names, and a JSON variant file is read with its pipeline
 * shorthands, or rejected with the file and the field named.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FAST_PARAMS, REGISTER_PREFETCH_PIPELINE, asyncPipeline, checkFastParams } from "@tessera/corpus";
import { afterAll, describe, expect, it } from "vitest";
import { BUILTIN_VARIANTS, readVariantFile, variantParams } from "../bench/gemm-variant-list.js";

const dir = mkdtempSync(join(tmpdir(), "gemm-variants-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

describe("gemm variant list", () => {
  it("built-in variants: distinct names, each a valid fastSchedule at 2048³, FAST_PARAMS first", () => {
    expect(new Set(BUILTIN_VARIANTS.map((v) => v.name)).size).toBe(BUILTIN_VARIANTS.length);
    for (const v of BUILTIN_VARIANTS) expect(() => checkFastParams(2048, variantParams(v)), v.name).not.toThrow();
    expect(variantParams(BUILTIN_VARIANTS[0]!)).toEqual(FAST_PARAMS);
  });

  it("reads a file's variants, with the pipeline shorthands", () => {
    const path = file("ok.json", {
      variants: [
        { name: "a4", params: { fetch: "async", pipeline: { async: 4 }, aPad: 0 } },
        { name: "rp", description: "register prefetch, k 16", params: { pipeline: "register-prefetch", tileK: 16 } },
        { name: "none", params: { pipeline: null } },
        { name: "explicit", params: { pipeline: { stages: [0, 0, 1], order: [0, 1, 2], asyncStages: [0] }, fetch: "async" } },
      ],
    });
    const variants = readVariantFile(path);
    expect(variants.map((v) => v.name)).toEqual(["a4", "rp", "none", "explicit"]);
    expect(variants[0]!.params).toEqual({ fetch: "async", pipeline: asyncPipeline(4), aPad: 0 });
    expect(variants[1]).toEqual({ name: "rp", description: "register prefetch, k 16", params: { pipeline: REGISTER_PREFETCH_PIPELINE, tileK: 16 } });
    expect(variants[2]!.params).toEqual({ pipeline: null });
    expect(variants[3]!.params.pipeline).toEqual(asyncPipeline(2));
  });

  it("names the file and the field of a bad variant", () => {
    expect(() => readVariantFile(file("bad1.json", [{ name: "x", params: { tileK: 8.5 } }]))).toThrow(
      /bad1\.json: not a list of gemm variants:\n {2}0\.params\.tileK: /,
    );
    expect(() => readVariantFile(file("bad2.json", [{ name: "x", params: { tile: 8 } }]))).toThrow(/bad2\.json.*\n.*0\.params: .*tile/);
    expect(() => readVariantFile(file("bad3.json", [{ name: "a/b", params: {} }]))).toThrow(/0\.name: a variant name is letters/);
    expect(() => readVariantFile(file("bad4.json", [{ name: "x", params: { pipeline: { async: 1 } } }]))).toThrow(/0\.params\.pipeline/);
    expect(() =>
      readVariantFile(
        file("dup.json", [
          { name: "x", params: {} },
          { name: "x", params: {} },
        ]),
      ),
    ).toThrow(/dup\.json: two variants are named x/);
    expect(() => readVariantFile(file("syntax.json", "[{"))).toThrow(/syntax\.json: /);
    expect(() => readVariantFile(join(dir, "missing.json"))).toThrow(/missing\.json: .*ENOENT/);
  });
});
