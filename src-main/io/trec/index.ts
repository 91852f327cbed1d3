/** TREC run and qrels files and their ir_metadata headers. */
export { parseRun, readRunFile, formatRun, type RunRow, type RunFormat, type RunReadOptions, type RunWriteRow, type RunWriteOptions } from './run';
export { parseQrels, readQrelsFile, parseRelevanceMappingTsv, formatQrels, type QrelRow, type QrelsFormat, type QrelsReadOptions, type QrelWriteRow } from './qrels';
export { formatIrMetadataHeader, parseIrMetadataHeader, type IrMetadata } from './irMetadata';
