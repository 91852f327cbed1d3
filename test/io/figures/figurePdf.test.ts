/**
 * Figure exports (issue 17 item 7): a real plotly figure, drawn by plotly.js in Debian's Chromium,
 * exported as vector PDF by figureExport/svgToPdf.ts — a valid PDF (structure checked by hand,
 * parsed by pdflatex's \includegraphics and, when installed, poppler), drawn with paths and text
 * (no image XObject), carrying the manifest as an attached file and in its document information.
 * The SVG and PNG exports carry the same manifest (<metadata>, an iTXt chunk). Plus hand-computed
 * cases of the geometry (arcs, transforms, text anchoring).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutText, textRuns } from '../../../src-renderer/src/components/figureExport/fonts';
import { crc32, dataUrlBytes, dataUrlText, manifestOfPng, manifestOfSvg, pngWithManifest, svgWithManifest } from '../../../src-renderer/src/components/figureExport/manifest';
import { arcToBeziers, parseColor, parseTransform, pathOps, svgToPdf } from '../../../src-renderer/src/components/figureExport/svgToPdf';
import { parseXml } from '../../../src-renderer/src/components/figureExport/xml';
import { launchBrowser } from '../../support/browser';
import { compileLatex } from '../../support/pdflatex';
import { checkPdfStructure, hasPoppler, poppler } from './pdfCheck';

const dir = mkdtempSync(join(tmpdir(), 'fg-figpdf-'));
let browser: Browser;
let svg = '';
let rich = '';
let png: Uint8Array = new Uint8Array();

const manifest = { kind: 'fairground-run', run: { id: 7, experiment: 'fair-rag demo' }, note: 'α ≥ 0.5, φ — UTF-8 survives' };
const manifestJson = JSON.stringify(manifest, null, 2);

beforeAll(async () => {
  browser = await launchBrowser();
  const page = await browser.newPage();
  await page.setContent('<html><body><div id="p"></div></body></html>');
  await page.addScriptTag({ content: readFileSync(join(process.cwd(), 'node_modules', 'plotly.js-dist-min', 'plotly.min.js'), 'utf8') });
  const urls = await page.evaluate(async () => {
    // Runs in the page (the test's tsconfig has no DOM types).
    const g = globalThis as unknown as { Plotly: { newPlot(...a: unknown[]): Promise<unknown>; toImage(el: unknown, o: object): Promise<string> }; document: { getElementById(id: string): unknown } };
    const P = g.Plotly;
    const el = g.document.getElementById('p');
    await P.newPlot(
      el,
      [
        { x: [0, 0.5, 1], y: [0.2, 0.5, 0.9], type: 'scatter', mode: 'lines+markers', name: 'EU (α = 0.5)', error_y: { type: 'data', array: [0.05, 0.1, 0.08] } },
        { x: [0, 0.5, 1], y: [0.3, 0.4, 0.6], type: 'bar', name: 'NCOM ≥ φ', opacity: 0.6 },
        { x: [0, 1], y: [0.1, 0.1], mode: 'lines', name: 'floor', line: { dash: 'dash' } },
      ],
      {
        width: 720,
        height: 420,
        title: { text: 'Expected utility vs α' },
        font: { family: 'system-ui, sans-serif', size: 13 },
        xaxis: { title: { text: 'α' } },
        yaxis: { title: { text: 'EU' } },
      },
    );
    const first = { svg: await P.toImage(el, { format: 'svg', width: 720, height: 420 }), png: await P.toImage(el, { format: 'png', width: 720, height: 420, scale: 300 / 96 }) };
    // The other trace types the app draws (box, filled area, marker symbols) and plotly's rich text.
    await P.newPlot(
      el,
      [
        { y: [0.1, 0.3, 0.35, 0.5, 0.9, 0.4], type: 'box', name: 'EU\u0305 box', boxpoints: 'all' },
        { x: ['a', 'b', 'c'], y: [0.2, 0.6, 0.4], type: 'scatter', fill: 'tozeroy', name: 'area', fillcolor: 'rgba(44,160,44,0.3)' },
        { x: ['a', 'b', 'c'], y: [0.3, 0.2, 0.7], type: 'scatter', mode: 'markers', marker: { symbol: 'diamond', size: 10 }, name: 'x<sub>i</sub> and y<sup>2</sup>' },
      ],
      { width: 720, height: 420, title: { text: 'Two lines<br>second line: κ ≈ 0.8' }, annotations: [{ x: 'b', y: 0.6, text: '<b>peak</b>', showarrow: true }], yaxis: { title: { text: 'EU\u0305' } } },
    );
    return { ...first, rich: await P.toImage(el, { format: 'svg', width: 720, height: 420 }) };
  });
  svg = dataUrlText(urls.svg);
  rich = dataUrlText(urls.rich);
  png = dataUrlBytes(urls.png);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('vector PDF of a plotly figure', () => {
  it('is a valid one-page PDF of the figure size, drawn with paths and text, with the manifest attached', () => {
    const { pdf, unsupported, skipped } = svgToPdf(svg, { title: 'Expected utility vs α', manifest: { fileName: 'fig.manifest.json', json: manifestJson } });
    expect(unsupported).toEqual([]);
    expect(skipped).toEqual([]);
    const s = checkPdfStructure(pdf);
    const all = [...s.bodies.values()].join('\n');
    // One page of 720 × 420 px at 0.75 pt/px.
    expect(all).toContain('/MediaBox [0 0 540 315]');
    expect(all.match(/\/Type \/Page\b/g)).toHaveLength(1);
    // Vector only: no image XObject (no XObject at all), no inline image.
    expect(all).not.toMatch(/\/XObject|\/Image|\bBI\b/);
    const content = [...s.bodies.values()].find((b) => b.includes(' cm\n') && b.includes('stream'))!;
    const ops = (op: string) => content.split('\n').filter((l) => l === op || l.endsWith(` ${op}`)).length;
    expect(ops('re')).toBeGreaterThan(0); // background, clip rects
    expect(ops('l')).toBeGreaterThan(10); // grid, axes, line, error bars, bars
    expect(ops('c')).toBeGreaterThanOrEqual(3 * 4); // three circular markers, 4 Béziers each (legend marker too)
    expect(ops('f') + ops('f*')).toBeGreaterThan(3); // bars and markers filled
    expect(ops('S')).toBeGreaterThan(3); // lines stroked
    expect(content).toMatch(/\[[\d.]+ [\d.]+\] 0 d/); // the dashed trace
    expect(content).toMatch(/\/GS\d+ gs/); // the bar trace's opacity 0.6 (ExtGState)
    expect(all).toMatch(/\/ca 0\.6 \/CA 1/);
    // Text as text: Helvetica for Latin, Symbol for α, ≥, φ (\141 = 'a' is α in Symbol).
    expect(content).toContain('(Expected utility vs ) Tj');
    expect(content).toMatch(/\/F3 [\d.]+ Tf\n\(a\) Tj/);
    expect(all).toContain('/BaseFont /Helvetica /Encoding /WinAnsiEncoding');
    expect(all).toContain('/BaseFont /Symbol');
    // The manifest: an embedded file (UTF-8 bytes), named in the catalog, and in /Info.
    const embedded = [...s.bodies.values()].find((b) => b.includes('/Type /EmbeddedFile'))!;
    const bytes = Buffer.from(embedded.slice(embedded.indexOf('stream\n') + 7, embedded.lastIndexOf('\nendstream')), 'latin1');
    expect(JSON.parse(bytes.toString('utf8'))).toEqual(manifest);
    expect(all).toMatch(/\/Names << \/EmbeddedFiles << \/Names \[<FEFF[0-9A-F]+> \d+ 0 R\] >> >>/);
    expect(all).toContain('/FairgroundManifest <FEFF');
    writeFileSync(join(dir, 'fig.pdf'), pdf);
  });

  it('is read by pdfTeX: \\includegraphics of the PDF compiles', () => {
    const { pdf } = svgToPdf(svg, { manifest: { fileName: 'fig.manifest.json', json: manifestJson } });
    const file = join(dir, 'included.pdf');
    writeFileSync(file, pdf);
    const out = compileLatex(`\\includegraphics[width=\\linewidth]{${file}}`, ['graphicx']);
    expect(out.pdfBytes).toBeGreaterThan(pdf.length / 2);
  });

  it.skipIf(!hasPoppler())('is read by poppler: one 540 × 315 pt page, the labels as text, the manifest attached, no images', () => {
    const { pdf } = svgToPdf(svg, { title: 'Expected utility vs α', manifest: { fileName: 'fig.manifest.json', json: manifestJson } });
    const file = join(dir, 'poppler.pdf');
    writeFileSync(file, pdf);
    const info = poppler('pdfinfo', [file]);
    expect(info).toMatch(/Pages:\s+1\n/);
    expect(info).toMatch(/Page size:\s+540 x 315 pts/);
    expect(info).toMatch(/Title:\s+Expected utility vs α/);
    expect(info).toMatch(/Subject:\s+Reproducibility manifest attached as fig\.manifest\.json/);
    const text = poppler('pdftotext', ['-layout', file, '-']);
    for (const label of ['Expected utility vs α', 'EU (α = 0.5)', 'NCOM ≥ φ', 'floor', '0.5', '0.8']) expect(text).toContain(label);
    expect(poppler('pdfdetach', ['-list', file])).toContain('1: fig.manifest.json');
    poppler('pdfdetach', ['-save', '1', '-o', join(dir, 'detached.json'), file]);
    expect(JSON.parse(readFileSync(join(dir, 'detached.json'), 'utf8'))).toEqual(manifest);
    // pdfimages lists a header of two lines and one line per image: none.
    expect(poppler('pdfimages', ['-list', file]).trim().split('\n')).toHaveLength(2);
  });
});

describe('vector PDF of plotly rich text, boxes and areas', () => {
  let richFile: string | undefined;
  it('draws every character (overbars, sub/superscripts, bold, two-line title) and is read by pdfTeX and poppler', () => {
    const { pdf, unsupported, skipped } = svgToPdf(rich);
    expect(unsupported).toEqual([]);
    expect(skipped).toEqual([]);
    const content = Buffer.from(pdf).toString('latin1');
    expect(content).toContain('/BaseFont /Helvetica-Bold'); // <b>peak</b>
    expect(content).toContain('(Two lines) Tj');
    expect(content).toContain('(second line: ) Tj');
    expect(content).toMatch(/\/F3 [\d.]+ Tf\n\(k\) Tj/); // κ in Symbol
    expect(content).toMatch(/\/ca 0\.3 \/CA 1/); // the filled area's rgba fill
    const file = join(dir, 'rich.pdf');
    writeFileSync(file, pdf);
    compileLatex(`\\includegraphics[width=\\linewidth]{${file}}`, ['graphicx']);
    richFile = file;
  });

  // A separate test, so a machine without poppler counts it as skipped (issue 26 item 4).
  it.skipIf(!hasPoppler())('poppler extracts every label of the rich-text PDF', () => {
    expect(richFile, 'the test above wrote no PDF').toBeDefined();
    const text = poppler('pdftotext', ['-layout', richFile!, '-']);
    for (const label of ['Two lines', 'second line: κ', 'peak', 'area', 'and y']) expect(text).toContain(label);
  });
});

describe('SVG and PNG exports carry the manifest', () => {
  it('SVG: a <metadata> element, still a well-formed <svg> document', () => {
    const out = svgWithManifest(svg, manifestJson);
    expect(out).toMatch(/^<svg[\s\S]*<\/svg>$/);
    expect(parseXml(out).name).toBe('svg');
    expect(JSON.parse(manifestOfSvg(out)!)).toEqual(manifest);
    // Replaced, not duplicated, when written twice; "]]>" in the JSON survives the CDATA.
    const twice = svgWithManifest(out, JSON.stringify({ s: 'a]]>b' }));
    expect(twice.match(/<metadata/g)).toHaveLength(1);
    expect(JSON.parse(manifestOfSvg(twice)!)).toEqual({ s: 'a]]>b' });
    // The PDF of an SVG with metadata draws the same (metadata is not drawn).
    expect(svgToPdf(out).pdf.length).toBe(svgToPdf(svg).pdf.length);
  });

  it('PNG: an iTXt chunk before IEND with a correct CRC; the image is unchanged', () => {
    const out = pngWithManifest(png, manifestJson);
    expect(out.length).toBe(png.length + 12 + 'fairground-manifest'.length + 5 + Buffer.byteLength(manifestJson));
    expect(Buffer.from(out.subarray(16, 24))).toEqual(Buffer.from(png.subarray(16, 24))); // IHDR width/height
    expect(Buffer.from(out.subarray(-12)).toString('latin1', 4, 8)).toBe('IEND');
    expect(JSON.parse(manifestOfPng(out)!)).toEqual(manifest);
    expect(manifestOfPng(png)).toBeUndefined();
    const corrupt = Uint8Array.from(out);
    corrupt[out.length - 20] ^= 1; // a byte of the manifest text
    expect(() => manifestOfPng(corrupt)).toThrow(/bad CRC in the iTXt chunk/);
    expect(() => pngWithManifest(new TextEncoder().encode('GIF89a....'), '{}')).toThrow(/not a PNG file/);
  });

  it('CRC-32 matches the PNG specification (IEND chunk: AE 42 60 82)', () => {
    expect(crc32(new TextEncoder().encode('IEND')).toString(16)).toBe('ae426082');
    expect(crc32(new TextEncoder().encode('123456789')).toString(16)).toBe('cbf43926');
  });
});

describe('geometry and text, by hand', () => {
  it('a quarter arc is one Bézier with handles at 4/3·tan(π/8) = 0.5523 of the radius', () => {
    const [seg] = arcToBeziers(1, 0, 1, 1, 0, false, true, 0, 1);
    expect(seg!.map((v) => Math.round(v * 10000) / 10000)).toEqual([1, 0.5523, 0.5523, 1, 0, 1]);
    expect(pathOps('M1,0A1,1 0 0,1 0,1')).toEqual(['1 0 m', '1 0.552 0.552 1 0 1 c']);
    // plotly's circle marker: two arcs (270° + 90°) = 3 + 1 Béziers, closed.
    const marker = pathOps('M3,0A3,3 0 1,1 0,-3A3,3 0 0,1 3,0Z');
    expect(marker.filter((o) => o.endsWith(' c'))).toHaveLength(4);
    expect(marker.at(-2)).toBe('1.657 -3 3 -1.657 3 0 c');
    expect(marker.at(-1)).toBe('h');
  });

  it('relative and shorthand path commands', () => {
    expect(pathOps('M81,181.84h8m-4,0V205.1m-4,0h8')).toEqual(['81 181.84 m', '89 181.84 l', '85 181.84 m', '85 205.1 l', '81 205.1 m', '89 205.1 l']);
    expect(pathOps('M0,0Q10,10 20,0T40,0')).toEqual(['0 0 m', '6.667 6.667 13.333 6.667 20 0 c', '26.667 -6.667 33.333 -6.667 40 0 c']);
  });

  it('transforms: rotate(-90, 42, 220) turns about (42, 220); lists compose left to right', () => {
    expect(parseTransform('rotate(-90,42,220)').map((v) => Math.round(v * 1e9) / 1e9)).toEqual([0, -1, 1, 0, -178, 262]);
    expect(parseTransform('translate(10,20) scale(2)')).toEqual([2, 0, 0, 2, 10, 20]);
  });

  it('colours: rgb(), rgba(), #hex, none', () => {
    expect(parseColor('rgb(31, 119, 180)')).toEqual({ r: 31, g: 119, b: 180, a: 1 });
    expect(parseColor('rgba(0,0,0,0.25)')).toEqual({ r: 0, g: 0, b: 0, a: 0.25 });
    expect(parseColor('#f0a')).toEqual({ r: 255, g: 0, b: 170, a: 1 });
    expect(parseColor('none')).toBeNull();
  });

  it('text anchored at its middle: "0.5" at 12 px is (556 + 278 + 556)/1000 · 12 = 16.68 px wide', () => {
    expect(textRuns('0.5', false)[0]!.width * 12).toBeCloseTo(16.68, 10);
    const one = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><text x="50" y="20" text-anchor="middle" style="font-size: 12px; fill: rgb(68, 68, 68);">0.5</text></svg>';
    const content = Buffer.from(svgToPdf(one).pdf).toString('latin1');
    expect(content).toContain('1 0 0 -1 41.66 20 Tm\n/F1 12 Tf\n(0.5) Tj');
    expect(content).toContain('0.267 0.267 0.267 rg');
    // Runs split by font; a character neither font has is '?' and reported.
    const unsupported = new Set<string>();
    expect(textRuns('a≥b✓', false, unsupported).map((r) => [r.font, String.fromCharCode(...r.codes)])).toEqual([
      ['F1', 'a'],
      ['F3', '\xb3'],
      ['F1', 'b?'],
    ]);
    expect([...unsupported]).toEqual(['✓']);
  });

  it('EU̅: a combining overline becomes a bar over the U; zero-width spaces (plotly sub/sup) vanish', () => {
    // "E" 667 + "U" 722 at 10 px: the bar spans 6.67 … 13.89 px, 0.6 px thick, 8.6 px above the baseline.
    const { runs, overbars } = layoutText('EU\u0305\u200b', false);
    expect(runs.map((r) => String.fromCharCode(...r.codes))).toEqual(['EU']);
    expect(overbars).toEqual([[0.667, 1.389]]);
    const one = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><text x="0" y="20" style="font-size: 10px;">EU\u0305</text></svg>';
    const content = Buffer.from(svgToPdf(one).pdf).toString('latin1');
    expect(content).toContain('(EU) Tj\nET\n6.67 11.4 7.22 0.6 re\nf');
  });

  it('bad SVG is an error that says where', () => {
    expect(() => svgToPdf('<svg width="10" height="10"><g></svg>')).toThrow(/SVG: end tag <\/svg> does not close <g> at character \d+/);
    expect(() => svgToPdf('<svg></svg>')).toThrow(/no width and height/);
    expect(() => svgToPdf('<html/>')).toThrow(/root element is <html>/);
  });
});
