/**
 * `pnpm bench:wgsl-probe` (device bundle: `run.sh wgsl-probe`): on a GPU host without a Vulkan
 * loader, tries one after the other the ways Dawn might reach the NVIDIA GPU (wgsl-probe-plan.ts),
 * printing each ICD json and whether the library it names exists, and each attempt's outcome.
 * Each attempt is one run of bench-wgsl (wgsl.bench.ts) under its environment, so the first that
 * gets an adapter also times the fast gemm schedule's WGSL against its CUDA in the same run; the
 * probe stops there. Writes `wgsl-gpu-probe.{json,md}` (`-dry-run` with --dry-run) into --out-dir
 * (default docs/benchmarks) and each attempt's bench-wgsl report below `wgsl-gpu-probe/`.
 *
 * `--dry-run`: the same attempts (skipped where the host lacks their pieces), then Dawn on Mesa's
 * llvmpipe at 128³. Other options go to bench-wgsl: `--size N`, `--repeat N`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hostFacts } from "./wgsl-probe-host.js";
import { type HostFacts, type ProbeAttempt, probePlan } from "./wgsl-probe-plan.js";

interface Outcome {
  readonly attempt: string;
  readonly backend: string;
  readonly env: Readonly<Record<string, string | null>>;
  readonly result: "skipped" | "no adapter" | "adapter" | "crashed";
  readonly detail: string;
  readonly ratio?: number | null;
}

const here = dirname(fileURLToPath(import.meta.url));

/** How to start bench-wgsl: the bundle's sibling entry, else the TypeScript source under this Node's loader (tsx). */
function benchCommand(): string[] {
  const bundled = join(here, "bench-wgsl.mjs");
  if (existsSync(bundled)) return [bundled];
  return [...process.execArgv, join(here, "wgsl.bench.ts")];
}

function childEnv(attempt: ProbeAttempt): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [key, value] of Object.entries(attempt.env)) {
    if (value === null) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** The last `n` lines of `text` that are not empty. */
function tail(text: string, n: number): string {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(-n)
    .join("\n");
}

function runAttempt(attempt: ProbeAttempt, dir: string, passThrough: readonly string[], dryRun: boolean): Outcome {
  const base = { attempt: attempt.name, backend: attempt.backend, env: attempt.env };
  if (attempt.skipped !== undefined) return { ...base, result: "skipped", detail: attempt.skipped };
  for (const [path, text] of Object.entries(attempt.files)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  mkdirSync(dir, { recursive: true });
  const args = [...benchCommand(), "--backend", attempt.backend, "--out-dir", dir, ...(dryRun ? ["--dry-run"] : []), ...passThrough];
  const child = spawnSync(process.execPath, args, { env: childEnv(attempt), encoding: "utf8", timeout: 300_000, maxBuffer: 64 * 2 ** 20 });
  const log = `${child.stdout ?? ""}\n${child.stderr ?? ""}`;
  writeFileSync(join(dir, "log.txt"), log);
  const reportPath = join(dir, dryRun ? "wgsl-vs-cuda-dry-run.json" : "wgsl-vs-cuda.json");
  if (!existsSync(reportPath)) {
    const how = child.error !== undefined ? child.error.message : child.signal !== null ? `signal ${child.signal}` : `exit ${child.status}`;
    return { ...base, result: "crashed", detail: `bench-wgsl ended (${how}) without a report; its last lines:\n${tail(log, 15)}` };
  }
  const report = JSON.parse(readFileSync(reportPath, "utf8")) as { wgsl: { device: string } | null; ratio: number | null; notes: string[] };
  if (report.wgsl === null) return { ...base, result: "no adapter", detail: `${report.notes.join(" ")}\n${tail(child.stderr ?? "", 10)}`.trim() };
  return { ...base, result: "adapter", detail: `${report.wgsl.device}; ${report.notes.join(" ")}`, ratio: report.ratio };
}

function factsLines(facts: HostFacts): string[] {
  const lines =
    facts.nvidiaIcds.length === 0 ? ["- NVIDIA Vulkan ICD json: none in /etc/vulkan/icd.d, /usr/share/vulkan/icd.d, /usr/local/share/vulkan/icd.d"] : [];
  for (const icd of facts.nvidiaIcds) {
    lines.push(
      `- ICD json \`${icd.json}\` names \`${icd.library ?? "(no library_path)"}\`: ${icd.libraryFound === undefined ? "**not found**" : `found at \`${icd.libraryFound}\``}`,
    );
    lines.push(
      "",
      "  ```json",
      ...readFileSync(icd.json, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => `  ${l}`),
      "  ```",
      "",
    );
  }
  const where = (what: string, path: string | undefined) => `- ${what}: ${path === undefined ? "not found" : `\`${path}\``}`;
  lines.push(
    where("libEGL_nvidia.so.0", facts.eglNvidia),
    where("the host's libEGL.so.1 (glvnd)", facts.hostLibEgl),
    where("the carried Vulkan loader", facts.carriedVulkanDir),
    where("the carried glvnd libEGL.so.1", facts.carriedEglDir),
    `- LD_LIBRARY_PATH: \`${facts.ldLibraryPath ?? ""}\``,
  );
  return lines;
}

function markdown(facts: HostFacts, outcomes: readonly Outcome[], dryRun: boolean): string {
  const success = outcomes.find((o) => o.result === "adapter");
  return [
    `# Dawn on the NVIDIA GPU: what \`pnpm bench:wgsl-probe${dryRun ? " --dry-run" : ""}\` found`,
    "",
    `Written on ${new Date().toISOString()}.`,
    "",
    "## The host",
    "",
    ...factsLines(facts),
    "",
    "## The attempts, in order",
    "",
    ...outcomes.flatMap((o, i) => [
      `${i + 1}. **${o.attempt}** (${o.backend}): ${o.result}`,
      `   - environment: ${
        Object.entries(o.env)
          .map(([k, v]) => `\`${k}=${v ?? "(unset)"}\``)
          .join(" ") || "(unchanged)"
      }`,
      ...o.detail.split("\n").map((l, j) => (j === 0 ? `   - ${l}` : `     ${l}`)),
    ]),
    "",
    success === undefined
      ? "No attempt got an adapter: the WGSL-vs-CUDA ratio stays unmeasured on this host."
      : `First adapter: ${success.attempt}; throughput WGSL / CUDA: ${success.ratio === null || success.ratio === undefined ? "— (CUDA did not run)" : `**${success.ratio.toFixed(3)}×**`} (bench-wgsl's report beside this file).`,
    "",
  ].join("\n");
}

function main(): void {
  const argv = process.argv.slice(2);
  const at = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const dryRun = argv.includes("--dry-run");
  const outDir = resolve(at("--out-dir") ?? join("docs", "benchmarks"));
  const passThrough = ["--size", "--repeat"].flatMap((f) => (at(f) === undefined ? [] : [f, at(f)!]));
  const stem = dryRun ? "wgsl-gpu-probe-dry-run" : "wgsl-gpu-probe";
  const work = join(outDir, stem);
  const facts = hostFacts([here, resolve(".device-bundle")]);
  console.log(factsLines(facts).join("\n"));
  const outcomes: Outcome[] = [];
  for (const [i, attempt] of probePlan(facts, work, dryRun).entries()) {
    console.log(`\n[${i + 1}] ${attempt.name} ...`);
    const outcome = runAttempt(attempt, join(work, `attempt-${i + 1}`), passThrough, dryRun);
    console.log(`    ${outcome.result}: ${outcome.detail.split("\n").join("\n    ")}`);
    outcomes.push(outcome);
    if (outcome.result === "adapter") break;
  }
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, `${stem}.json`), `${JSON.stringify({ date: new Date().toISOString(), dryRun, facts, outcomes }, null, 2)}\n`);
  writeFileSync(join(outDir, `${stem}.md`), markdown(facts, outcomes, dryRun));
  console.log(`\nwritten: ${join(outDir, `${stem}.md`)}`);
}

main();
