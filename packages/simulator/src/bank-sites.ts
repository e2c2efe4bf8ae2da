/**
 * The shared-memory instructions of a kernel, as the bank-conflict model sees them, collected while
 * the kernel is compiled. A static access site (one `BufferLoad`/`BufferStore` of a shared buffer)
 * is one report row. It is one warp-level instruction per execution when scalar, or when it is a
 * vector access the CUDA generator emits as one wide access (a unit-stride `Ramp` index with a
 * CUDA vector type, e.g. float4); any other vector access becomes one scalar instruction per lane,
 * as in the generated CUDA. Each instruction gets a slot the recorder pairs executions in.
 */
import { type Buffer, type PrimExpr, describeAccess, dtypeInfo, lanesOf, makeDType } from "@tessera/ir";
import { isCudaVectorType } from "@tessera/codegen";

/** A static shared-memory access site (a row of the bank-conflict report). */
export interface BankSite {
  readonly buffer: string;
  readonly access: "load" | "store";
  /** e.g. `A_shared[threadIdx_x * 4 + 1]` */
  readonly text: string;
  /** Bytes one thread accesses per instruction (4 for float32, 16 for a float4 access). */
  readonly widthBytes: number;
}

/** One warp-level instruction: a site, or one lane of a site emitted lane by lane. */
export interface BankSlot {
  /** Index of its site in `BankSiteTable.sites`. */
  readonly site: number;
  readonly access: "load" | "store";
  /** Bytes per element of the buffer (the element index is scaled by it to a byte address). */
  readonly elementBytes: number;
  readonly widthBytes: number;
}

export class BankSiteTable {
  readonly sites: BankSite[] = [];
  readonly slots: BankSlot[] = [];
  /** The site of the access being emitted, by its `indices` array, for the lanes after lane 0. */
  private readonly laneSites = new Map<readonly PrimExpr[], { site: number; wide: boolean }>();

  /**
   * The slot recording this lane (`lane`: undefined for a scalar access) of the access
   * `buffer[indices]`, or undefined when the lane is part of a wide access recorded by lane 0.
   * Lanes are emitted in order, lane 0 first. `oneInstruction`: the lanes move as one access of
   * their full width whatever CUDA type they have (a cp.async of 8 halves is one 16-byte LDGSTS).
   */
  slotFor(buffer: Buffer, indices: readonly PrimExpr[], access: "load" | "store", lane: number | undefined, oneInstruction = false): number | undefined {
    const elementBytes = Math.ceil(dtypeInfo(buffer.dtype).bits / 8);
    if (lane === undefined || lane === 0) {
      const lanes = Math.max(1, ...indices.map((i) => lanesOf(i.dtype)));
      const wide = lane !== undefined && (oneInstruction || isWideAccess(buffer, indices, lanes));
      const widthBytes = wide ? elementBytes * lanes : elementBytes;
      const site = this.sites.length;
      this.sites.push({ buffer: buffer.name, access, text: describeAccess(buffer, indices), widthBytes });
      if (lane !== undefined) this.laneSites.set(indices, { site, wide });
      return this.addSlot(site, access, elementBytes, widthBytes);
    }
    const current = this.laneSites.get(indices);
    if (current === undefined || current.wide) return undefined;
    return this.addSlot(current.site, access, elementBytes, elementBytes);
  }

  /** A site whose warp accesses the recorder gets gathered (`recordWarpAccess`): no slot. */
  gatheredSite(site: BankSite): number {
    this.sites.push(site);
    return this.sites.length - 1;
  }

  private addSlot(site: number, access: "load" | "store", elementBytes: number, widthBytes: number): number {
    this.slots.push({ site, access, elementBytes, widthBytes });
    return this.slots.length - 1;
  }
}

/** A contiguous vector access of a scalar buffer that CUDA performs as one access of a vector type. */
function isWideAccess(buffer: Buffer, indices: readonly PrimExpr[], lanes: number): boolean {
  const last = indices[indices.length - 1];
  if (last?.kind !== "Ramp" || last.stride.kind !== "IntImm" || last.stride.value !== 1) return false;
  if (indices.slice(0, -1).some((i) => lanesOf(i.dtype) > 1)) return false;
  const element = dtypeInfo(buffer.dtype);
  return element.lanes === 1 && isCudaVectorType(makeDType(element.code, element.bits, lanes));
}
