/**
 * CSV per RFC 4180: a field containing a comma, a double quote, CR or LF is enclosed in double
 * quotes with inner quotes doubled (§2.6–2.7). Pure: the CLI, the services' exports and the
 * renderer's downloads write CSV with these.
 */

/** One field. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export type CsvValue = string | number | boolean | null | undefined;

/** A header and rows, `\n` line ends; null and undefined are empty fields, numbers in JS's shortest round-trip form. */
export function csvTable(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  const field = (v: CsvValue): string => (v === null || v === undefined ? '' : csvField(String(v)));
  return [header, ...rows].map((r) => r.map(field).join(',')).join('\n') + '\n';
}
