/** TREC run and qrels files and their ir_metadata headers. */
export { parseRun, parseRunColumns, readRunFile, readRunColumns, readRunColumnsSync, readRunByQuery, forEachRunQuery, RunNotGroupedError, runRows, runQueries, type RunColumns, type RunRow, type RunFormat, type RunReadOptions } from './run';
export { formatRun, type RunWriteRow, type RunWriteOptions } from './runWriter';
export { parseQrels, readQrels, readQrelsFile, parseRelevanceMappingTsv, formatQrels, type QrelRow, type QrelsFormat, type QrelsReadOptions, type QrelWriteRow } from './qrels';
export { formatIrMetadataHeader, formatIrMetadataYaml, parseIrMetadataHeader, type IrMetadata } from './irMetadata';
