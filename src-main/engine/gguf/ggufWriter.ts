/**
 * Writes a GGUF v3 file (little-endian): header, metadata key/values, tensor infos, then the
 * tensor data, each tensor starting at a multiple of `general.alignment`. Tensors are produced
 * and written one at a time so a 100M-parameter model never sits in memory whole. The file
 * appears under its name only when complete (written beside it, then renamed).
 */
import { open, rename, rm } from 'node:fs/promises';
import { GGUF_DEFAULT_ALIGNMENT, GgmlType, GgufValueType } from './ggufFormat';
import { encodeTensor, encodedSize } from './tensorEncoding';

export type GgufScalar =
  | { type: GgufValueType.STRING; value: string }
  | { type: GgufValueType.UINT32 | GgufValueType.INT32 | GgufValueType.FLOAT32 | GgufValueType.UINT64; value: number }
  | { type: GgufValueType.BOOL; value: boolean };

export type GgufArrayItemType = GgufValueType.STRING | GgufValueType.INT32 | GgufValueType.UINT32 | GgufValueType.FLOAT32;

export type GgufKvValue = GgufScalar | { type: GgufValueType.ARRAY; itemType: GgufArrayItemType; values: readonly (string | number)[] };

export interface GgufTensorSpec {
  name: string;
  /** Dimensions, row length first (ggml order): `token_embd.weight` is `[n_embd, n_vocab]`. */
  dims: readonly number[];
  type: GgmlType;
  /** Produces the float32 values when the tensor is written. */
  values: () => Float32Array;
}

export interface GgufSpec {
  /** Metadata in file order; `general.alignment` is honoured when present. */
  kv: Map<string, GgufKvValue>;
  tensors: GgufTensorSpec[];
}

export const kv = {
  str: (value: string): GgufKvValue => ({ type: GgufValueType.STRING, value }),
  u32: (value: number): GgufKvValue => ({ type: GgufValueType.UINT32, value }),
  i32: (value: number): GgufKvValue => ({ type: GgufValueType.INT32, value }),
  f32: (value: number): GgufKvValue => ({ type: GgufValueType.FLOAT32, value }),
  bool: (value: boolean): GgufKvValue => ({ type: GgufValueType.BOOL, value }),
  arr: (itemType: GgufArrayItemType, values: readonly (string | number)[]): GgufKvValue => ({ type: GgufValueType.ARRAY, itemType, values }),
};

/** A growable little-endian byte buffer for the header section. */
class ByteSink {
  private buf = Buffer.alloc(1 << 16);
  length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = Buffer.alloc(size);
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }
  u8(v: number): void {
    this.reserve(1);
    this.buf.writeUInt8(v, this.length);
    this.length += 1;
  }
  u32(v: number): void {
    this.reserve(4);
    this.buf.writeUInt32LE(v, this.length);
    this.length += 4;
  }
  i32(v: number): void {
    this.reserve(4);
    this.buf.writeInt32LE(v, this.length);
    this.length += 4;
  }
  f32(v: number): void {
    this.reserve(4);
    this.buf.writeFloatLE(v, this.length);
    this.length += 4;
  }
  u64(v: number): void {
    this.reserve(8);
    this.buf.writeBigUInt64LE(BigInt(v), this.length);
    this.length += 8;
  }
  str(s: string): void {
    const bytes = Buffer.from(s, 'utf8');
    this.u64(bytes.length);
    this.reserve(bytes.length);
    bytes.copy(this.buf, this.length);
    this.length += bytes.length;
  }
  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

function writeValue(sink: ByteSink, type: GgufValueType, value: string | number | boolean): void {
  switch (type) {
    case GgufValueType.STRING:
      return sink.str(value as string);
    case GgufValueType.UINT32:
      return sink.u32(value as number);
    case GgufValueType.INT32:
      return sink.i32(value as number);
    case GgufValueType.FLOAT32:
      return sink.f32(value as number);
    case GgufValueType.UINT64:
      return sink.u64(value as number);
    case GgufValueType.BOOL:
      return sink.u8(value ? 1 : 0);
    default:
      throw new Error(`the GGUF writer does not write value type ${type}`);
  }
}

const pad = (n: number, alignment: number): number => Math.ceil(n / alignment) * alignment;

/** How `writeGguf` finishes its temporary file. */
export interface GgufWriteOptions {
  /** Permission bits of the temporary file (e.g. those of the file it will replace); default 0666 less the umask. */
  mode?: number | null;
  /** Moves the finished temporary file into place (default: rename onto `path`); it may refuse (throw). */
  commit?: (tmp: string) => void | Promise<void>;
}

export async function writeGguf(path: string, spec: GgufSpec, options: GgufWriteOptions = {}): Promise<{ bytes: number }> {
  const alignmentKv = spec.kv.get('general.alignment');
  const alignment = alignmentKv && alignmentKv.type === GgufValueType.UINT32 ? alignmentKv.value : GGUF_DEFAULT_ALIGNMENT;

  const head = new ByteSink();
  head.u8(0x47); // 'G'
  head.u8(0x47); // 'G'
  head.u8(0x55); // 'U'
  head.u8(0x46); // 'F'
  head.u32(3);
  head.u64(spec.tensors.length);
  head.u64(spec.kv.size);
  for (const [key, value] of spec.kv) {
    head.str(key);
    head.u32(value.type);
    if (value.type === GgufValueType.ARRAY) {
      head.u32(value.itemType);
      head.u64(value.values.length);
      for (const item of value.values) writeValue(head, value.itemType, item);
    } else {
      writeValue(head, value.type, value.value);
    }
  }
  let offset = 0;
  const sizes: number[] = [];
  for (const t of spec.tensors) {
    const elements = t.dims.reduce((a, b) => a * b, 1);
    const size = encodedSize(t.type, elements);
    sizes.push(size);
    head.str(t.name);
    head.u32(t.dims.length);
    for (const d of t.dims) head.u64(d);
    head.u32(t.type);
    head.u64(offset);
    offset += pad(size, alignment);
  }

  const tmp = `${path}.partial-${process.pid}`;
  const file = await open(tmp, 'w', options.mode ?? 0o666);
  try {
    if (options.mode !== undefined && options.mode !== null) await file.chmod(options.mode);
    const header = head.bytes();
    const dataStart = pad(header.length, alignment);
    await file.write(header);
    await file.write(Buffer.alloc(dataStart - header.length));
    let written = dataStart;
    for (let i = 0; i < spec.tensors.length; i++) {
      const t = spec.tensors[i] as GgufTensorSpec;
      const values = t.values();
      const elements = t.dims.reduce((a, b) => a * b, 1);
      if (values.length !== elements) throw new Error(`tensor ${t.name}: ${values.length} values for dims [${t.dims.join(', ')}]`);
      const data = encodeTensor(t.type, values);
      await file.write(data);
      const padded = pad(data.length, alignment);
      if (padded > data.length) await file.write(Buffer.alloc(padded - data.length));
      written += padded;
      if (data.length !== sizes[i]) throw new Error(`tensor ${t.name}: encoded ${data.length} bytes, expected ${sizes[i]}`);
    }
    await file.close();
    if (options.commit) await options.commit(tmp);
    else await rename(tmp, path);
    return { bytes: written };
  } catch (err) {
    await file.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  }
}
