/**
 * Reads what a GGUF file says about its model — header, metadata key/values and tensor infos —
 * without loading any weights: architecture, parameter count (from tensor shapes), quantization,
 * context length, embedding width, layer count, whether it has a chat template. Files that are
 * not GGUF, of an unknown version, truncated or structurally corrupt are rejected with a
 * `DataError` naming the file; llama.cpp may abort the process on such files, so the model
 * library checks them here first.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { DataError } from '../../core/errors';
import {
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  GGUF_SCALAR_SIZE,
  GgufValueType,
  LLAMA_FILE_TYPE_NAMES,
  ggmlTensorBytes,
  ggmlTypeName,
  GGML_TYPE_LAYOUT,
} from './ggufFormat';

export type GgufMetadataValue = string | number | boolean | (string | number | boolean)[] | { arrayOf: string; length: number };

export interface GgufTensorInfo {
  name: string;
  dims: number[];
  type: string;
  /** Offset of the data from the start of the data section. */
  offset: number;
}

export interface GgufModelInfo {
  file: string;
  fileSize: number;
  version: number;
  architecture: string | undefined;
  name: string | undefined;
  /** Total elements of all tensors. */
  parameterCount: number;
  /** `general.file_type` as llama.cpp names it (e.g. `MOSTLY_Q8_0`), when present. */
  fileType: string | undefined;
  /** The tensor type holding most parameters (e.g. `Q8_0`, `F16`). */
  quantization: string;
  /** Parameters per tensor type. */
  parametersByType: Record<string, number>;
  contextLength: number | undefined;
  embeddingLength: number | undefined;
  layerCount: number | undefined;
  headCount: number | undefined;
  vocabSize: number | undefined;
  poolingType: number | undefined;
  hasChatTemplate: boolean;
  tensorCount: number;
  /** Byte offset where tensor data starts. */
  dataOffset: number;
  /** Every key: scalars as stored, arrays of up to 16 items in full, longer ones summarised. */
  metadata: Record<string, GgufMetadataValue>;
}

const MAX_INLINE_ARRAY = 16;
const MAX_DIMS = 4;
const MAX_COUNT = 1 << 24;

class Truncated extends Error {}

/** Sequential little-endian reads over a file through a buffer, so huge files cost no memory. */
class FileCursor {
  private buf = Buffer.alloc(0);
  private bufStart = 0;
  pos = 0;

  constructor(
    private readonly fd: number,
    readonly size: number,
  ) {}

  private ensure(n: number): void {
    if (this.pos + n > this.size) throw new Truncated();
    if (this.pos >= this.bufStart && this.pos + n <= this.bufStart + this.buf.length) return;
    const want = Math.min(Math.max(n, 1 << 20), this.size - this.pos);
    this.buf = Buffer.alloc(want);
    let got = 0;
    while (got < want) {
      const r = readSync(this.fd, this.buf, got, want - got, this.pos + got);
      if (r === 0) throw new Truncated();
      got += r;
    }
    this.bufStart = this.pos;
  }
  private at(n: number): number {
    this.ensure(n);
    const o = this.pos - this.bufStart;
    this.pos += n;
    return o;
  }
  u8 = (): number => this.buf.readUInt8(this.at(1));
  i8 = (): number => this.buf.readInt8(this.at(1));
  u16 = (): number => this.buf.readUInt16LE(this.at(2));
  i16 = (): number => this.buf.readInt16LE(this.at(2));
  u32 = (): number => this.buf.readUInt32LE(this.at(4));
  i32 = (): number => this.buf.readInt32LE(this.at(4));
  f32 = (): number => this.buf.readFloatLE(this.at(4));
  f64 = (): number => this.buf.readDoubleLE(this.at(8));
  u64 = (): number => Number(this.buf.readBigUInt64LE(this.at(8)));
  i64 = (): number => Number(this.buf.readBigInt64LE(this.at(8)));
  bytes(n: number): Buffer {
    const o = this.at(n);
    return this.buf.subarray(o, o + n);
  }
  skip(n: number): void {
    if (this.pos + n > this.size) throw new Truncated();
    this.pos += n;
  }
}

export async function readGgufMetadata(file: string): Promise<GgufModelInfo> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw new DataError(`cannot open: ${(err as Error).message}`, { file });
  }
  try {
    return parse(file, new FileCursor(fd, fstatSync(fd).size));
  } finally {
    closeSync(fd);
  }
}

function parse(file: string, c: FileCursor): GgufModelInfo {
  const fail = (reason: string): never => {
    throw new DataError(reason, { file });
  };
  let what = 'the header';
  try {
    if (c.size < 4) fail(`not a GGUF file (only ${c.size} bytes)`);
    const magic = c.bytes(4);
    if (magic.toString('latin1') !== GGUF_MAGIC) fail(`not a GGUF file (starts with ${JSON.stringify(magic.toString('latin1'))}, expected "GGUF")`);
    const version = c.u32();
    if (version !== 2 && version !== 3) fail(`unsupported GGUF version ${version} (Fairground reads versions 2 and 3)`);
    const tensorCount = c.u64();
    const kvCount = c.u64();
    if (tensorCount > MAX_COUNT || kvCount > MAX_COUNT) fail(`corrupt GGUF header (${tensorCount} tensors, ${kvCount} metadata keys)`);

    const metadata: Record<string, GgufMetadataValue> = {};
    for (let i = 0; i < kvCount; i++) {
      what = `metadata key ${i + 1} of ${kvCount}`;
      const key = readString(c);
      what = `metadata value of ${key}`;
      const type = c.u32();
      metadata[key] = readValue(c, type, key, fail);
    }

    const tensors: GgufTensorInfo[] = [];
    const parametersByType: Record<string, number> = {};
    let parameterCount = 0;
    let dataBytesNeeded = 0;
    // Known before the tensor infos (the metadata comes first): offsets must be multiples of it.
    const alignmentKey = metadata['general.alignment'];
    const tensorAlignment = typeof alignmentKey === 'number' && alignmentKey > 0 ? alignmentKey : GGUF_DEFAULT_ALIGNMENT;
    for (let i = 0; i < tensorCount; i++) {
      what = `tensor info ${i + 1} of ${tensorCount}`;
      const name = readString(c);
      const nDims = c.u32();
      if (nDims < 1 || nDims > MAX_DIMS) fail(`corrupt tensor info for ${name}: ${nDims} dimensions`);
      const dims: number[] = [];
      for (let d = 0; d < nDims; d++) dims.push(c.u64());
      const type = c.u32();
      const offset = c.u64();
      const elements = dims.reduce((a, b) => a * b, 1);
      const typeName = ggmlTypeName(type);
      // What llama.cpp would assert on (a crash, not an error): refuse it here (issue 15 item 6).
      const layout = GGML_TYPE_LAYOUT[type];
      if (!layout) fail(`tensor ${name} has an unknown tensor type ${type} (this version knows the ggml types up to ${Math.max(...Object.keys(GGML_TYPE_LAYOUT).map(Number))})`);
      if (offset % tensorAlignment !== 0) fail(`tensor ${name} starts at offset ${offset}, not a multiple of the alignment ${tensorAlignment}`);
      if (elements % layout[1] !== 0) fail(`tensor ${name} has ${elements} values, not a whole number of ${typeName} blocks of ${layout[1]}`);
      tensors.push({ name, dims, type: typeName, offset });
      parameterCount += elements;
      parametersByType[typeName] = (parametersByType[typeName] ?? 0) + elements;
      const bytes = ggmlTensorBytes(type, elements);
      if (bytes !== undefined) dataBytesNeeded = Math.max(dataBytesNeeded, offset + bytes);
    }

    const alignmentValue = metadata['general.alignment'];
    const alignment = typeof alignmentValue === 'number' && alignmentValue > 0 ? alignmentValue : GGUF_DEFAULT_ALIGNMENT;
    const dataOffset = Math.ceil(c.pos / alignment) * alignment;
    if (dataOffset + dataBytesNeeded > c.size) {
      fail(`truncated GGUF: the tensors need ${dataOffset + dataBytesNeeded} bytes but the file has ${c.size}`);
    }

    const arch = typeof metadata['general.architecture'] === 'string' ? (metadata['general.architecture'] as string) : undefined;
    const num = (key: string): number | undefined => (typeof metadata[key] === 'number' ? (metadata[key] as number) : undefined);
    const str = (key: string): string | undefined => (typeof metadata[key] === 'string' ? (metadata[key] as string) : undefined);
    const fileTypeId = num('general.file_type');
    const tokens = metadata['tokenizer.ggml.tokens'];
    const quantization = Object.entries(parametersByType).sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'none';
    return {
      file,
      fileSize: c.size,
      version,
      architecture: arch,
      name: str('general.name'),
      parameterCount,
      fileType: fileTypeId === undefined ? undefined : (LLAMA_FILE_TYPE_NAMES[fileTypeId] ?? `file_type#${fileTypeId}`),
      quantization,
      parametersByType,
      contextLength: arch ? num(`${arch}.context_length`) : undefined,
      embeddingLength: arch ? num(`${arch}.embedding_length`) : undefined,
      layerCount: arch ? num(`${arch}.block_count`) : undefined,
      headCount: arch ? num(`${arch}.attention.head_count`) : undefined,
      vocabSize: Array.isArray(tokens) || (tokens && typeof tokens === 'object') ? tokens.length : undefined,
      poolingType: arch ? num(`${arch}.pooling_type`) : undefined,
      hasChatTemplate: typeof metadata['tokenizer.chat_template'] === 'string' && (metadata['tokenizer.chat_template'] as string).length > 0,
      tensorCount,
      dataOffset,
      metadata,
    };
  } catch (err) {
    if (err instanceof Truncated) throw new DataError(`truncated GGUF: the file ends (at ${c.size} bytes) inside ${what}`, { file });
    throw err;
  }
}

function readString(c: FileCursor): string {
  const len = c.u64();
  return c.bytes(len).toString('utf8');
}

function readScalar(c: FileCursor, type: GgufValueType): string | number | boolean {
  switch (type) {
    case GgufValueType.UINT8:
      return c.u8();
    case GgufValueType.INT8:
      return c.i8();
    case GgufValueType.UINT16:
      return c.u16();
    case GgufValueType.INT16:
      return c.i16();
    case GgufValueType.UINT32:
      return c.u32();
    case GgufValueType.INT32:
      return c.i32();
    case GgufValueType.FLOAT32:
      return c.f32();
    case GgufValueType.BOOL:
      return c.u8() !== 0;
    case GgufValueType.STRING:
      return readString(c);
    case GgufValueType.UINT64:
      return c.u64();
    case GgufValueType.INT64:
      return c.i64();
    case GgufValueType.FLOAT64:
      return c.f64();
    default:
      throw new RangeError(`value type ${type}`);
  }
}

function readValue(c: FileCursor, type: number, key: string, fail: (reason: string) => never): GgufMetadataValue {
  if (type === GgufValueType.ARRAY) {
    const itemType = c.u32();
    const length = c.u64();
    if (itemType === GgufValueType.ARRAY) fail(`corrupt metadata ${key}: nested arrays are not supported`);
    const itemSize = GGUF_SCALAR_SIZE[itemType as GgufValueType];
    if (itemType !== GgufValueType.STRING && itemSize === undefined) fail(`corrupt metadata ${key}: unknown array item type ${itemType}`);
    // Cheap bound before looping: every item takes at least its fixed size (strings at least 8 bytes).
    if (length * (itemSize ?? 8) > c.size - c.pos) throw new Truncated();
    if (length <= MAX_INLINE_ARRAY) {
      const items: (string | number | boolean)[] = [];
      for (let i = 0; i < length; i++) items.push(readScalar(c, itemType));
      return items;
    }
    if (itemType === GgufValueType.STRING) for (let i = 0; i < length; i++) c.skip(c.u64());
    else c.skip(length * (itemSize as number));
    return { arrayOf: GgufValueType[itemType]?.toLowerCase() ?? String(itemType), length };
  }
  if (!(type in GgufValueType)) fail(`corrupt metadata ${key}: unknown value type ${type}`);
  return readScalar(c, type);
}
