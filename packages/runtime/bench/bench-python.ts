/**
 * The Python interpreter of the CPU benchmarks' references (NumPy, PyTorch): `$TESSERA_BENCH_PYTHON`
 * when set, else the repository's git-ignored `.venv-bench` (made by scripts/bench-venv.sh with the
 * pinned PyTorch CPU wheel and NumPy) when it exists, else Debian's /usr/bin/python3.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const VENV_PYTHON = fileURLToPath(new URL("../../../.venv-bench/bin/python", import.meta.url));

/** How the benchmarks' venv is made (the pinned versions; scripts/bench-venv.sh). */
export const BENCH_VENV_INSTALL = "bash scripts/bench-venv.sh";

export function benchPython(): string {
  const fromEnv = process.env.TESSERA_BENCH_PYTHON;
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  return existsSync(VENV_PYTHON) ? VENV_PYTHON : "/usr/bin/python3";
}
