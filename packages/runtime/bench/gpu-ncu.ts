/**
 * Nsight Compute counters for `bench:gpu --ncu`: the bench runs itself once more under `ncu` in
 * `--profile-once` mode (each GEMM kernel launched once), and cuBLAS's SGEMM once through torch,
 * then reads ncu's CSV. Clocks are left alone (`--clock-control none`).
 */
import { parse } from "csv-parse/sync";
import { execa } from "execa";

/** The counters read, and the names the report uses for them. */
export const NCU_METRICS = {
  "gpu__time_duration.sum": "durationUs",
  "sm__throughput.avg.pct_of_peak_sustained_elapsed": "smThroughputPct",
  "sm__warps_active.avg.pct_of_peak_sustained_active": "achievedOccupancyPct",
  "smsp__inst_executed_op_shared_ld.sum": "sharedLoadInstructions",
  "smsp__inst_executed_op_shared_st.sum": "sharedStoreInstructions",
  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "sharedLoadWavefronts",
  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "sharedStoreWavefronts",
  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "sharedLoadBankConflicts",
  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "sharedStoreBankConflicts",
} as const;

export type NcuMetricName = (typeof NCU_METRICS)[keyof typeof NCU_METRICS];

export interface NcuKernel {
  /** The kernel's name as ncu reports it. */
  readonly name: string;
  readonly metrics: Partial<Record<NcuMetricName, number>>;
}

export type NcuResult = { ok: true; kernels: NcuKernel[]; version: string } | { ok: false; reason: string };

// The operands are made on the host and copied, so that A @ B launches the first kernel of the
// process: cuBLAS's kernel names are not stable (CUDA 13's cuBLAS launches one named "Kernel2").
const TORCH_ONCE = `
import torch
torch.backends.cuda.matmul.allow_tf32 = False
n = 2048
A = (torch.rand(n, n) * 2 - 1).cuda()
B = (torch.rand(n, n) * 2 - 1).cuda()
torch.cuda.synchronize()
A @ B
torch.cuda.synchronize()
`;

/** Runs `command` under ncu with the bench's counters on kernels matching `kernelRegex`. */
export async function ncuProfile(
  command: readonly string[],
  kernelRegex: string,
  opts: { launchCount?: number; env?: Record<string, string> } = {},
): Promise<NcuResult> {
  const version = await execa("ncu", ["--version"], { reject: false });
  if (version.exitCode !== 0) return { ok: false, reason: `ncu is not available (${String(version.stderr || version.shortMessage).split("\n")[0]})` };
  const args = [
    "--csv",
    "--clock-control",
    "none",
    "--metrics",
    Object.keys(NCU_METRICS).join(","),
    "--kernel-name",
    `regex:${kernelRegex}`,
    ...(opts.launchCount === undefined ? [] : ["--launch-count", String(opts.launchCount)]),
    ...command,
  ];
  const r = await execa("ncu", args, { reject: false, all: true, timeout: 300_000, env: opts.env });
  const out = String(r.stdout);
  const csv = out
    .split("\n")
    .filter((l) => l.startsWith('"'))
    .join("\n");
  if (csv.length === 0) return { ok: false, reason: `ncu printed no counters (exit ${r.exitCode}): ${String(r.all).trim().split("\n").slice(-3).join(" | ")}` };
  return { ok: true, kernels: parseNcuCsv(csv), version: String(version.stdout).trim().split("\n").pop() ?? "ncu" };
}

/** ncu's `--csv` rows (one per kernel launch and metric) grouped into kernels in launch order. */
export function parseNcuCsv(csv: string): NcuKernel[] {
  const rows = parse(csv, { columns: true, skip_empty_lines: true, relax_column_count: true }) as Record<string, string>[];
  const byId = new Map<string, { name: string; metrics: Partial<Record<NcuMetricName, number>> }>();
  for (const row of rows) {
    const id = row["ID"] ?? "";
    const metric = NCU_METRICS[row["Metric Name"] as keyof typeof NCU_METRICS];
    let k = byId.get(id);
    if (k === undefined) {
      k = { name: row["Kernel Name"] ?? "?", metrics: {} };
      byId.set(id, k);
    }
    if (metric === undefined) continue;
    const value = Number((row["Metric Value"] ?? "").replace(/,/g, ""));
    const unit = row["Metric Unit"] ?? "";
    // Durations come in ns, us or ms depending on size: keep microseconds.
    const scaled = metric === "durationUs" ? value * ({ ns: 1e-3, nsecond: 1e-3, us: 1, usecond: 1, ms: 1e3, msecond: 1e3 }[unit] ?? 1) : value;
    if (Number.isFinite(scaled)) k.metrics[metric] = scaled;
  }
  return [...byId.entries()].sort((a, b) => Number(a[0]) - Number(b[0])).map(([, k]) => k);
}

/** cuBLAS's SGEMM for torch `A @ B` at 2048² (TF32 off), profiled once. */
export function ncuProfileCublas(): Promise<NcuResult> {
  return ncuProfile(["python3", "-c", TORCH_ONCE], ".", { launchCount: 1 });
}

/** Shared-memory wavefronts per instruction (1 = no conflicts for 32-bit accesses). */
export function wavefrontsPerInstruction(m: NcuKernel["metrics"], op: "load" | "store"): number | undefined {
  const w = op === "load" ? m.sharedLoadWavefronts : m.sharedStoreWavefronts;
  const n = op === "load" ? m.sharedLoadInstructions : m.sharedStoreInstructions;
  return w === undefined || n === undefined || n === 0 ? undefined : w / n;
}
