/**
 * One recorded program's CUDA under several `__launch_bounds__`, for programs of chosen kernel
 * families, compiled to sm_90 cubins for `launch-bounds-ab.py` to time on a GPU: what a launch-bounds
 * rule is worth on the hardware, program by program, with the rest of each kernel unchanged.
 *
 *   pnpm exec tsx --conditions=@tessera/source packages/meta-schedule/bench/launch-bounds-variants.ts \
 *     --profiles ROWS.json[,ROWS.json…] --out DIR --plan 64,512,128,5:40:none/4/5 [--plan …]
 *
 * ROWS: `pnpm bench:prior-profiles --out` rows of the gemm+ReLU+add 2048³ (their decisions, measured
 * ms and kernel profiles). A plan is FAMILY:COUNT:BOUNDS — the family as threads per block, blocks,
 * largest local buffer and recorded minimum blocks per SM ("none" without one); COUNT programs taken
 * evenly through the rows; BOUNDS the second operands to compile, "none" for `__launch_bounds__(threads)`.
 * DIR gets pN.cu/.cubin/.ptxas (one kernel per bound, named pN_BOUND) and manifest.json; then, on a
 * GPU host, `python3 launch-bounds-ab.py DIR`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { codegenCuda, cudaTarget } from "@tessera/codegen";
import { execa } from "execa";
import { existingFile } from "./command-line.js";
import { recordedProgramBuilder } from "./recorded-program.js";

interface ProfileRow {
  readonly workload: string;
  readonly run: string;
  readonly ms: number;
  readonly cublasMs?: number;
  readonly decisions: readonly unknown[];
  readonly kernels: readonly { readonly profile: { threadsPerBlock: number; blocks: number; largestLocalBuffer: number; minBlocksPerSM?: number } }[];
}

const { values } = parseArgs({ options: { profiles: { type: "string" }, out: { type: "string" }, plan: { type: "string", multiple: true } } });
if (values.profiles === undefined || values.out === undefined || values.plan === undefined) {
  console.error("usage: launch-bounds-variants.ts --profiles ROWS.json[,…] --out DIR --plan THREADS,BLOCKS,LOCAL,MINBLOCKS|none:COUNT:BOUND/BOUND/… […]");
  process.exit(2);
}
const WORKLOAD = "gemm_relu_add_2048";
const rows = values.profiles.split(",").flatMap((f) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(existingFile(f), "utf8"));
  } catch (err) {
    console.error(`launch-bounds-variants: ${f}: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  }
  if (!Array.isArray(parsed)) {
    console.error(`launch-bounds-variants: ${f} is not a list of bench:prior-profiles rows`);
    process.exit(2);
  }
  return (parsed as ProfileRow[]).filter((r) => r.workload === WORKLOAD && Array.isArray(r.decisions) && Array.isArray(r.kernels));
});
const familyOf = (r: ProfileRow) => {
  const p = r.kernels[0]!.profile;
  return `${p.threadsPerBlock},${p.blocks},${p.largestLocalBuffer},${p.minBlocksPerSM ?? "none"}`;
};
const build = recordedProgramBuilder(WORKLOAD, cudaTarget("nvidia/h200"));
mkdirSync(values.out, { recursive: true });
const manifest: unknown[] = [];
let id = 0;
for (const plan of values.plan) {
  const [family, countText, boundsText] = plan.split(":");
  const count = Number(countText);
  if (family === undefined || !Number.isInteger(count) || count < 1 || boundsText === undefined) {
    console.error(`launch-bounds-variants: --plan ${plan}: expected THREADS,BLOCKS,LOCAL,MINBLOCKS|none:COUNT:BOUND/BOUND/…`);
    process.exit(2);
  }
  const members = rows.filter((r) => r.kernels.length === 1 && r.cublasMs !== undefined && familyOf(r) === family);
  const step = Math.max(1, Math.floor(members.length / count));
  for (let i = 0; i < count && i * step < members.length; i++, id++) {
    const row = members[i * step]!;
    const module = build(row.decisions, row.run);
    const source = codegenCuda(module).source;
    const bounds = /__launch_bounds__\((\d+)(?:, (\d+))?\)/.exec(source);
    if (bounds === null) throw new Error(`${row.run}: no __launch_bounds__ in its CUDA`);
    const kernels = boundsText.split("/").map((b) => ({ bound: b, name: `p${id}_${b}` }));
    const kernelName = module.kernels[0]!.name;
    const cu = kernels
      .map(({ bound, name }) => source.replace(bounds[0], `__launch_bounds__(${bounds[1]}${bound === "none" ? "" : `, ${bound}`})`).replace(kernelName, name))
      .join("\n");
    writeFileSync(join(values.out, `p${id}.cu`), cu);
    const ptxas = await execa(
      "nvcc",
      ["-cubin", "-arch=sm_90", "-O3", "-Xptxas", "-v", "-o", join(values.out, `p${id}.cubin`), join(values.out, `p${id}.cu`)],
      { all: true, reject: false },
    );
    writeFileSync(join(values.out, `p${id}.ptxas`), ptxas.all ?? "");
    if (ptxas.exitCode !== 0) {
      console.error(
        `launch-bounds-variants: nvcc could not compile p${id}.cu (${ptxas.failed && ptxas.exitCode === undefined ? "is nvcc installed?" : `exit ${ptxas.exitCode}`}); see p${id}.ptxas`,
      );
      process.exit(1);
    }
    manifest.push({
      id,
      family,
      builtBound: bounds[2] ?? "none",
      recordedRatio: row.ms / row.cublasMs!,
      run: row.run,
      launch: module.kernels[0]!.launch,
      kernels: kernels.map((k) => k.name),
    });
    console.log(`p${id}: ${family}, built with bound ${bounds[2] ?? "none"}, recorded ${(row.ms / row.cublasMs!).toFixed(3)}×`);
  }
}
writeFileSync(join(values.out, "manifest.json"), JSON.stringify(manifest, null, 1));
