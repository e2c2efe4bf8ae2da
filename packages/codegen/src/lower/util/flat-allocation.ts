/**
 * A block allocation as TVM's LowerOpaqueBlock writes it: the storage (`Allocate`), the buffer
 * declared on it (`DeclBuffer`), and the allocation's annotations, `buffer_allocated_addr` (none
 * yet) and `buffer_data_alignment` (the buffer's alignment in bytes), as attribute scopes on the
 * buffer's data, in the order TVMScript's `T.alloc_buffer(..., annotations={...})` reads them.
 * The code generators treat the two attributes as hints and print nothing for them.
 */
import { type Allocate, type AttrStmt, type Buffer, type Stmt, allocate, attrStmt, call, intImm } from "@tessera/ir";

export const BUFFER_ALLOCATED_ADDR = "buffer_allocated_addr";
export const BUFFER_DATA_ALIGNMENT = "buffer_data_alignment";

export function flatAllocation(buffer: Buffer, body: Stmt): Stmt {
  const aligned = attrStmt(BUFFER_DATA_ALIGNMENT, buffer.data, intImm(buffer.dataAlignment, "int32"), body);
  const annotated = attrStmt(BUFFER_ALLOCATED_ADDR, buffer.data, call("handle", "tvm_tuple", []), aligned);
  return allocate(buffer, { kind: "DeclBuffer", buffer, body: annotated });
}

/** The statements an allocation scopes, without its own `DeclBuffer` and allocation annotations. */
export function allocationBody(s: Allocate): Stmt {
  let body = s.body;
  if (body.kind === "DeclBuffer" && body.buffer === s.buffer) body = body.body;
  while (body.kind === "AttrStmt" && body.node === s.buffer.data && isAllocationAnnotation(body)) body = body.body;
  return body;
}

export function isAllocationAnnotation(s: AttrStmt): boolean {
  return s.key === BUFFER_ALLOCATED_ADDR || s.key === BUFFER_DATA_ALIGNMENT;
}
