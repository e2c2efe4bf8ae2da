/** Builds bank-conflict reports from the recorder's per-site totals, and sums them. */
import type { SiteTotals } from "./bank-recorder.js";
import type { BankSite } from "./bank-sites.js";
import type { BankConflictReport, BankConflictSite, SharedAccessCounts } from "./reports.js";

const NONE: SharedAccessCounts = { instructions: 0, wavefronts: 0, idealWavefronts: 0, conflicts: 0, worstWay: 0 };

function add(a: SharedAccessCounts, b: SharedAccessCounts): SharedAccessCounts {
  return {
    instructions: a.instructions + b.instructions,
    wavefronts: a.wavefronts + b.wavefronts,
    idealWavefronts: a.idealWavefronts + b.idealWavefronts,
    conflicts: a.conflicts + b.conflicts,
    worstWay: Math.max(a.worstWay, b.worstWay),
  };
}

/** Loads, stores and their total over `sites`. */
function summarize(sites: readonly BankConflictSite[]): BankConflictReport {
  const loads = sites.filter((s) => s.access === "load").reduce<SharedAccessCounts>(add, NONE);
  const stores = sites.filter((s) => s.access === "store").reduce<SharedAccessCounts>(add, NONE);
  return { sites, loads, stores, total: add(loads, stores) };
}

export function kernelBankConflicts(kernel: string, sites: readonly BankSite[], totals: SiteTotals): BankConflictReport {
  return summarize(
    sites.map((site, k) => {
      const wavefronts = totals.wavefronts[k]!;
      const idealWavefronts = totals.idealWavefronts[k]!;
      return {
        kernel,
        ...site,
        instructions: totals.instructions[k]!,
        wavefronts,
        idealWavefronts,
        conflicts: wavefronts - idealWavefronts,
        worstWay: totals.worstWay[k]!,
      };
    }),
  );
}

/** The sites of all `reports` (in order) and their totals. */
export function mergeBankConflicts(reports: readonly BankConflictReport[]): BankConflictReport {
  return summarize(reports.flatMap((r) => r.sites));
}
