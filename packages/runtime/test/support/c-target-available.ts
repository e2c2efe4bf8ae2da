/** Whether the C target's tests can run here: the native addon with HostLibrary and a C compiler. */
import { spawnSync } from "node:child_process";
import { loadNative } from "@tessera/runtime";

/** Why C-target tests cannot run on this machine, or undefined when they can. */
export function cTargetUnavailable(): string | undefined {
  const native = loadNative();
  if (!native.ok) return native.reason;
  if (native.addon.HostLibrary === undefined) return "the native addon has no HostLibrary (rebuild it)";
  const compiler = spawnSync(process.env.TESSERA_CC ?? "cc", ["--version"], { encoding: "utf8" });
  if (compiler.status !== 0) return "no C compiler (cc --version failed; apt-get install gcc)";
  return undefined;
}
