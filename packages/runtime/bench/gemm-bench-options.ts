/** The command line of the GEMM checks (`bench:half`, `bench:tc`): `--dry-run`, `--sizes a,b`, `--seed N`, `--out FILE.json`. */
export interface GemmBenchOptions {
  readonly dryRun: boolean;
  readonly sizes: readonly number[];
  readonly seed: number;
  readonly out: string | undefined;
}

export interface GemmBenchDefaults {
  /** Sizes on a GPU and in a dry run, e.g. "128,2048" and "128". */
  readonly sizes: string;
  readonly dryRunSizes: string;
  /** Every size must be a positive multiple of this (the schedule's tile). */
  readonly multipleOf: number;
}

export function parseGemmBenchOptions(argv: readonly string[], defaults: GemmBenchDefaults): GemmBenchOptions {
  const at = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const dryRun = argv.includes("--dry-run");
  const sizes = (at("--sizes") ?? (dryRun ? defaults.dryRunSizes : defaults.sizes)).split(",").map(Number);
  const m = defaults.multipleOf;
  if (sizes.some((n) => !Number.isInteger(n) || n < m || n % m !== 0)) throw new Error(`--sizes: multiples of ${m} expected, got ${at("--sizes")}`);
  const seed = Number(at("--seed") ?? "1");
  if (!Number.isInteger(seed)) throw new Error(`--seed: an integer expected, got ${at("--seed")}`);
  return { dryRun, sizes, seed, out: at("--out") };
}
