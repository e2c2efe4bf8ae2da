/** Compilation by running `nvcc` (the fallback where NVRTC is missing, and CI's CUDA check). */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";

/** $TESSERA_NVCC, else `nvcc` on PATH, else /usr/local/cuda/bin/nvcc. */
export function nvccCommand(): string {
  const env = process.env.TESSERA_NVCC;
  if (env !== undefined && env.length > 0) return env;
  return "nvcc";
}

let versionPromise: Promise<string | undefined> | undefined;

/** nvcc's version line (e.g. "Cuda compilation tools, release 13.0, V13.0.88 / Build ..."), or undefined when absent. */
export function nvccVersion(): Promise<string | undefined> {
  versionPromise ??= (async () => {
    for (const cmd of [nvccCommand(), "/usr/local/cuda/bin/nvcc"]) {
      if (cmd.includes("/") && !existsSync(cmd)) continue;
      try {
        const r = await execa(cmd, ["--version"], { reject: false, timeout: 30_000 });
        if (r.exitCode === 0) {
          resolvedNvcc = cmd;
          const lines = String(r.stdout)
            .split("\n")
            .filter((l) => /release|Build/.test(l));
          return lines.join(" / ").trim() || String(r.stdout).trim();
        }
      } catch {
        // try the next candidate
      }
    }
    return undefined;
  })();
  return versionPromise;
}

let resolvedNvcc: string | undefined;

export interface NvccRun {
  ok: boolean;
  image?: Uint8Array;
  log: string;
  command: string[];
}

/** nvcc -cubin -arch=sm_XX / nvcc -ptx -arch=compute_XX, in a private temp dir. */
export async function runNvcc(source: string, args: readonly string[], output: "cubin" | "ptx"): Promise<NvccRun> {
  if ((await nvccVersion()) === undefined) throw new Error("nvcc not found");
  const nvcc = resolvedNvcc ?? nvccCommand();
  const dir = await mkdtemp(join(tmpdir(), "tessera-nvcc-"));
  try {
    const src = join(dir, "kernel.cu");
    const out = join(dir, `kernel.${output}`);
    await writeFile(src, source);
    const command = [nvcc, output === "cubin" ? "-cubin" : "-ptx", ...args, "-o", out, src];
    const r = await execa(command[0] as string, command.slice(1), { reject: false, all: true, timeout: 300_000, cwd: dir });
    const log = String(r.all ?? "").replaceAll(dir + "/", "");
    if (r.exitCode !== 0 || !existsSync(out)) return { ok: false, log, command };
    const buf = await readFile(out);
    return { ok: true, image: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), log, command };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
