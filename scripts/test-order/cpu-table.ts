/**
 * Prints the CPU table of one or more logs written with TESSERA_TEST_CPU_LOG (cpu-per-file.ts):
 *   TESSERA_TEST_CPU_LOG=/tmp/cpu.jsonl pnpm test
 *   pnpm exec tsx scripts/test-order/cpu-table.ts /tmp/cpu.jsonl [--top N]
 */
import { readFileSync } from "node:fs";
import { cpuTable, parseCpuLog } from "./cpu-times.js";

const args = process.argv.slice(2);
const topAt = args.indexOf("--top");
const top = topAt >= 0 ? Number(args[topAt + 1]) : 20;
const logs = topAt >= 0 ? args.filter((_, i) => i !== topAt && i !== topAt + 1) : args;
if (logs.length === 0 || !Number.isInteger(top) || top < 1) {
  console.error("usage: tsx scripts/test-order/cpu-table.ts LOG.jsonl [LOG.jsonl...] [--top N]");
  process.exit(2);
}
console.log(cpuTable(parseCpuLog(logs.map((log) => readFileSync(log, "utf8")).join("\n")), top));
