/** What identifies a lowered kernel for the rounds worker: its device code and launch, as text. */
import type { LoweredModule } from "@tessera/codegen";
import { printStmt } from "@tessera/ir";

export function kernelFingerprint(module: LoweredModule): string {
  return module.kernels.map((k) => `${k.name} ${JSON.stringify(k.launch)}\n${printStmt(k.body)}`).join("\n");
}
