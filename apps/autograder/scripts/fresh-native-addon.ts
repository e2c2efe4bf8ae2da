/**
 * The runtime's native addon as its current sources build it, for a bundle that carries it to
 * another machine. `build/Release/tessera_cuda.node` is built at install time; a later change to
 * `native/` (a merge, a pull) leaves that file stale, and a bundle that copied it would run old
 * native code on the GPU host while the JavaScript beside it is new. So the bundler first runs the
 * package's own build script without `--force`: it compares its stamp (a hash of binding.gyp,
 * native/ and the platform: the addon is N-API, one build for every Node version) and compiles only when the sources changed.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** Brings `runtimeDir`'s addon up to date with its sources and returns its path; throws, with the build's own message, when it cannot. */
export function freshNativeAddon(runtimeDir: string): string {
  const script = join(runtimeDir, "scripts", "build-native.mjs");
  const result = spawnSync(process.execPath, [script, "--strict"], {
    cwd: runtimeDir,
    encoding: "utf8",
    // Compile from native/ even where a prebuilt binary is present: the bundle copies build/Release.
    env: { ...process.env, TESSERA_NATIVE_FROM_SOURCE: "1" },
    maxBuffer: 64 * 1024 * 1024,
  });
  const log = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim();
  if (result.error !== undefined || result.status !== 0) {
    const why = result.error?.message ?? log.split("\n").find((line) => line.trim().length > 0) ?? `exit code ${String(result.status)}`;
    throw new Error(`the native addon could not be brought up to date with ${join(runtimeDir, "native")}: ${why}`);
  }
  const addon = join(runtimeDir, "build", "Release", "tessera_cuda.node");
  if (!existsSync(addon)) throw new Error(`the native addon's build ended without ${addon}`);
  return addon;
}
