/** Parses `ptxas -v` (also `nvcc -Xptxas -v`, NVRTC `--ptxas-options=-v`) resource reports. */

export interface PtxasFunctionInfo {
  /** Entry (or device) function name as ptxas prints it (mangled for C++ names). */
  name: string;
  /** Target, e.g. "sm_90". */
  arch?: string;
  registers: number;
  barriers?: number;
  /** Static shared memory in bytes ("bytes smem"). */
  sharedBytes: number;
  /** Constant bank 0 bytes ("cmem[0]"), where ptxas reports it (CUDA 12 and older). */
  constBytes?: number;
  stackFrameBytes: number;
  spillStoreBytes: number;
  spillLoadBytes: number;
  compileTimeMs?: number;
}

export interface PtxasReport {
  functions: PtxasFunctionInfo[];
  gmemBytes?: number;
}

const RE_COMPILING = /Compiling entry function '([^']+)' for '([^']+)'/;
const RE_PROPERTIES = /Function properties for (\S+)/;
const RE_FRAME = /(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads/;
const RE_USED = /Used (\d+) registers/;
const RE_BARRIERS = /used (\d+) barriers/;
const RE_SMEM = /(\d+) bytes smem/;
const RE_CMEM0 = /(\d+) bytes cmem\[0\]/;
const RE_GMEM = /ptxas info\s*:\s*(\d+) bytes gmem/;
const RE_TIME = /Compile time = ([\d.]+) ms/;

function blank(name: string, arch?: string): PtxasFunctionInfo {
  const f: PtxasFunctionInfo = { name, registers: 0, sharedBytes: 0, stackFrameBytes: 0, spillStoreBytes: 0, spillLoadBytes: 0 };
  if (arch !== undefined) f.arch = arch;
  return f;
}

/** Extracts per-function registers, shared memory, stack and spills from a ptxas -v log. */
export function parsePtxasVerbose(log: string): PtxasReport {
  const byName = new Map<string, PtxasFunctionInfo>();
  const report: PtxasReport = { functions: [] };
  let current: PtxasFunctionInfo | undefined;
  let framesFor: PtxasFunctionInfo | undefined;
  const get = (name: string, arch?: string): PtxasFunctionInfo => {
    let f = byName.get(name);
    if (f === undefined) {
      f = blank(name, arch);
      byName.set(name, f);
      report.functions.push(f);
    } else if (arch !== undefined) f.arch = arch;
    return f;
  };
  for (const line of log.split(/\r?\n/)) {
    let m: RegExpExecArray | null;
    if ((m = RE_GMEM.exec(line)) !== null) {
      report.gmemBytes = Number(m[1]);
    } else if ((m = RE_COMPILING.exec(line)) !== null) {
      current = get(m[1] as string, m[2]);
    } else if ((m = RE_PROPERTIES.exec(line)) !== null) {
      framesFor = get(m[1] as string);
    } else if ((m = RE_FRAME.exec(line)) !== null) {
      const f = framesFor ?? current;
      if (f !== undefined) {
        f.stackFrameBytes = Number(m[1]);
        f.spillStoreBytes = Number(m[2]);
        f.spillLoadBytes = Number(m[3]);
      }
      framesFor = undefined;
    } else if ((m = RE_USED.exec(line)) !== null) {
      if (current === undefined) continue;
      current.registers = Number(m[1]);
      const b = RE_BARRIERS.exec(line);
      if (b !== null) current.barriers = Number(b[1]);
      const s = RE_SMEM.exec(line);
      current.sharedBytes = s !== null ? Number(s[1]) : 0;
      const c = RE_CMEM0.exec(line);
      if (c !== null) current.constBytes = Number(c[1]);
    } else if ((m = RE_TIME.exec(line)) !== null) {
      if (current !== undefined) current.compileTimeMs = Number(m[1]);
    }
  }
  return report;
}
