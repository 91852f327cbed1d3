/**
 * Vector PDF of a plotly figure (issue 17 item 7): the SVG that plotly's toImage writes, redrawn as
 * PDF paths and text — no raster anywhere — with the figure's reproducibility manifest attached as
 * an embedded file (`<figure>.manifest.json`, what `pdfdetach -list` shows) and in the document
 * information (/Subject says so; /FairgroundManifest holds the JSON).
 *
 * The subset drawn is what plotly's SVG uses: <g>/<svg>/<a> groups with transforms (matrix,
 * translate, scale, rotate, skew) and opacity, clip paths (clip-path="url(#id)" on rects and paths),
 * <path> (all commands, arcs as Béziers), <rect>, <circle>, <ellipse>, <line>, <polyline>,
 * <polygon>, and <text>/<tspan> (x, y, dx, dy in px or em, text-anchor, font-size, bold) with
 * fill, stroke, their opacities, stroke width, dashes, caps and joins from attributes and inline
 * styles. 1 px is 0.75 pt (96 px per inch), so the PDF prints at the size of the PNG export's
 * inches. Fonts: see fonts.ts. <image> elements (raster layers, e.g. heatmaps) are skipped and
 * reported in `skipped`.
 */
import { FONT_NAMES, layoutText, type FontKey, type TextLayout } from './fonts';
import { parseXml, type XmlElement, type XmlNode } from './xml';

type Matrix = [number, number, number, number, number, number];
const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

function multiply(m: Matrix, n: Matrix): Matrix {
  // m then n applied in m's space: result = m × n (SVG's transform list order).
  return [m[0] * n[0] + m[2] * n[1], m[1] * n[0] + m[3] * n[1], m[0] * n[2] + m[2] * n[3], m[1] * n[2] + m[3] * n[3], m[0] * n[4] + m[2] * n[5] + m[4], m[1] * n[4] + m[3] * n[5] + m[5]];
}

export function parseTransform(text: string | undefined): Matrix {
  let m: Matrix = IDENTITY;
  if (!text) return m;
  const re = /(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)/g;
  for (let t = re.exec(text); t; t = re.exec(text)) {
    const a = (t[2]!.match(/[+-]?(?:\d*\.\d+|\d+\.?)(?:[eE][+-]?\d+)?/g) ?? []).map(Number);
    let n: Matrix = IDENTITY;
    switch (t[1]) {
      case 'matrix':
        if (a.length === 6) n = a as Matrix;
        break;
      case 'translate':
        n = [1, 0, 0, 1, a[0] ?? 0, a[1] ?? 0];
        break;
      case 'scale':
        n = [a[0] ?? 1, 0, 0, a[1] ?? a[0] ?? 1, 0, 0];
        break;
      case 'rotate': {
        const r = ((a[0] ?? 0) * Math.PI) / 180;
        const [cx, cy] = [a[1] ?? 0, a[2] ?? 0];
        n = multiply(multiply([1, 0, 0, 1, cx, cy], [Math.cos(r), Math.sin(r), -Math.sin(r), Math.cos(r), 0, 0]), [1, 0, 0, 1, -cx, -cy]);
        break;
      }
      case 'skewX':
        n = [1, 0, Math.tan(((a[0] ?? 0) * Math.PI) / 180), 1, 0, 0];
        break;
      case 'skewY':
        n = [1, Math.tan(((a[0] ?? 0) * Math.PI) / 180), 0, 1, 0, 0];
        break;
    }
    m = multiply(m, n);
  }
  return m;
}

/** A number for the content stream: at most 3 decimals, no trailing zeros, no "-0". */
function num(v: number): string {
  if (!Number.isFinite(v)) return '0';
  const r = Math.round(v * 1000) / 1000;
  return Object.is(r, -0) || r === 0 ? '0' : String(r);
}

// ---- colours and styles -------------------------------------------------------------------

interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}
const NAMED_COLORS: Record<string, [number, number, number]> = {
  black: [0, 0, 0], white: [255, 255, 255], red: [255, 0, 0], green: [0, 128, 0], blue: [0, 0, 255], gray: [128, 128, 128], grey: [128, 128, 128],
  orange: [255, 165, 0], yellow: [255, 255, 0], purple: [128, 0, 128], lightgray: [211, 211, 211], lightgrey: [211, 211, 211], darkgray: [169, 169, 169], darkgrey: [169, 169, 169],
};

export function parseColor(value: string | undefined): Rgba | null | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'none' || v === 'transparent') return null;
  if (v === 'currentcolor') return { r: 0, g: 0, b: 0, a: 1 };
  const hex = /^#([0-9a-f]{3,8})$/.exec(v);
  if (hex) {
    let h = hex[1]!;
    if (h.length === 3 || h.length === 4) h = [...h].map((c) => c + c).join('');
    const n = (i: number) => parseInt(h.slice(i, i + 2), 16);
    return { r: n(0), g: n(2), b: n(4), a: h.length === 8 ? n(6) / 255 : 1 };
  }
  const fn = /^rgba?\(([^)]*)\)$/.exec(v);
  if (fn) {
    const parts = fn[1]!.split(/[\s,/]+/).filter(Boolean);
    const ch = (s: string | undefined) => (s?.endsWith('%') ? (parseFloat(s) * 255) / 100 : parseFloat(s ?? '0'));
    const alpha = parts[3] === undefined ? 1 : parts[3].endsWith('%') ? parseFloat(parts[3]) / 100 : parseFloat(parts[3]);
    return { r: ch(parts[0]), g: ch(parts[1]), b: ch(parts[2]), a: Number.isFinite(alpha) ? alpha : 1 };
  }
  const named = NAMED_COLORS[v];
  return named ? { r: named[0], g: named[1], b: named[2], a: 1 } : undefined;
}

/** Inherited presentation state. */
interface Style {
  fill: Rgba | null;
  fillOpacity: number;
  stroke: Rgba | null;
  strokeOpacity: number;
  strokeWidth: number;
  dash: number[] | null;
  cap: number;
  join: number;
  fontSize: number;
  bold: boolean;
  anchor: 'start' | 'middle' | 'end';
  evenOdd: boolean;
  visible: boolean;
  /** Product of the opacities of the element and its ancestors. */
  opacity: number;
}

const INITIAL: Style = {
  fill: { r: 0, g: 0, b: 0, a: 1 },
  fillOpacity: 1,
  stroke: null,
  strokeOpacity: 1,
  strokeWidth: 1,
  dash: null,
  cap: 0,
  join: 0,
  fontSize: 16,
  bold: false,
  anchor: 'start',
  evenOdd: false,
  visible: true,
  opacity: 1,
};

function declarations(el: XmlElement): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(el.attrs)) out.set(k, v);
  // Inline style wins over presentation attributes.
  for (const decl of (el.attrs.style ?? '').split(';')) {
    const colon = decl.indexOf(':');
    if (colon > 0) out.set(decl.slice(0, colon).trim().toLowerCase(), decl.slice(colon + 1).trim());
  }
  return out;
}

function length(v: string | undefined, fontSize: number, fallback: number): number {
  if (v === undefined || v.trim() === '') return fallback;
  const m = /^\s*([+-]?(?:\d*\.\d+|\d+\.?)(?:[eE][+-]?\d+)?)\s*(px|pt|em|%)?\s*$/.exec(v);
  if (!m) return fallback;
  const n = parseFloat(m[1]!);
  return m[2] === 'em' ? n * fontSize : m[2] === 'pt' ? (n * 4) / 3 : m[2] === '%' ? (n / 100) * fontSize : n;
}

function styleOf(el: XmlElement, parent: Style): { style: Style; d: Map<string, string> } {
  const d = declarations(el);
  const s: Style = { ...parent };
  const fill = parseColor(d.get('fill'));
  if (fill !== undefined) s.fill = fill;
  const stroke = parseColor(d.get('stroke'));
  if (stroke !== undefined) s.stroke = stroke;
  if (d.has('fill-opacity')) s.fillOpacity = parseFloat(d.get('fill-opacity')!) || 0;
  if (d.has('stroke-opacity')) s.strokeOpacity = parseFloat(d.get('stroke-opacity')!) || 0;
  if (d.has('stroke-width')) s.strokeWidth = length(d.get('stroke-width'), s.fontSize, 1);
  if (d.has('stroke-dasharray')) {
    const v = d.get('stroke-dasharray')!;
    const parts = v === 'none' ? [] : v.split(/[\s,]+/).filter(Boolean).map((p) => length(p, s.fontSize, 0));
    s.dash = parts.length && parts.some((p) => p > 0) ? (parts.length % 2 ? [...parts, ...parts] : parts) : null;
  }
  if (d.has('stroke-linecap')) s.cap = { butt: 0, round: 1, square: 2 }[d.get('stroke-linecap')!] ?? 0;
  if (d.has('stroke-linejoin')) s.join = { miter: 0, round: 1, bevel: 2 }[d.get('stroke-linejoin')!] ?? 0;
  if (d.has('font-size')) s.fontSize = length(d.get('font-size'), parent.fontSize, parent.fontSize);
  if (d.has('font-weight')) {
    const w = d.get('font-weight')!;
    s.bold = w === 'bold' || w === 'bolder' || (parseInt(w, 10) || 400) >= 600;
  }
  if (d.has('text-anchor')) {
    const a = d.get('text-anchor')!;
    s.anchor = a === 'middle' || a === 'end' ? a : 'start';
  }
  if (d.has('fill-rule')) s.evenOdd = d.get('fill-rule') === 'evenodd';
  if (d.has('visibility')) s.visible = d.get('visibility') !== 'hidden' && d.get('visibility') !== 'collapse';
  if (d.has('opacity')) s.opacity = parent.opacity * Math.max(0, Math.min(1, parseFloat(d.get('opacity')!) || 0));
  return { style: s, d };
}

// ---- paths ----------------------------------------------------------------------------------

/** SVG path data as PDF path operators (m, l, c, h), arcs and quadratics as cubic Béziers. */
export function pathOps(d: string): string[] {
  const tokens = d.match(/[MmLlHhVvCcSsQqTtAaZz]|[+-]?(?:\d*\.\d+|\d+\.?)(?:[eE][+-]?\d+)?/g) ?? [];
  const out: string[] = [];
  let i = 0;
  let cmd = '';
  let x = 0;
  let y = 0;
  let sx = 0;
  let sy = 0;
  let lastC: [number, number] | null = null;
  let lastQ: [number, number] | null = null;
  const isNum = (t: string | undefined) => t !== undefined && !/^[A-Za-z]$/.test(t);
  const next = (): number => Number(tokens[i++]);
  const flag = (): number => {
    // Arc flags may be written without separators ("a5,5 0 110,10"): take one digit.
    const t = tokens[i]!;
    if (t.length > 1 && (t[0] === '0' || t[0] === '1')) {
      tokens[i] = t.slice(1);
      return Number(t[0]);
    }
    i++;
    return Number(t);
  };
  const cubic = (x1: number, y1: number, x2: number, y2: number, x3: number, y3: number) => out.push(`${num(x1)} ${num(y1)} ${num(x2)} ${num(y2)} ${num(x3)} ${num(y3)} c`);
  while (i < tokens.length) {
    if (!isNum(tokens[i])) cmd = tokens[i++]!;
    else if (!cmd) break;
    const rel = cmd === cmd.toLowerCase();
    const ox = rel ? x : 0;
    const oy = rel ? y : 0;
    let c: [number, number] | null = null;
    let q: [number, number] | null = null;
    switch (cmd.toUpperCase()) {
      case 'M':
        x = ox + next();
        y = oy + next();
        sx = x;
        sy = y;
        out.push(`${num(x)} ${num(y)} m`);
        cmd = rel ? 'l' : 'L'; // further pairs are lines
        break;
      case 'L':
        x = ox + next();
        y = oy + next();
        out.push(`${num(x)} ${num(y)} l`);
        break;
      case 'H':
        x = ox + next();
        out.push(`${num(x)} ${num(y)} l`);
        break;
      case 'V':
        y = oy + next();
        out.push(`${num(x)} ${num(y)} l`);
        break;
      case 'C': {
        const [x1, y1, x2, y2] = [ox + next(), oy + next(), ox + next(), oy + next()];
        x = ox + next();
        y = oy + next();
        cubic(x1, y1, x2, y2, x, y);
        c = [x2, y2];
        break;
      }
      case 'S': {
        const [x1, y1] = lastC ? [2 * x - lastC[0], 2 * y - lastC[1]] : [x, y];
        const [x2, y2] = [ox + next(), oy + next()];
        x = ox + next();
        y = oy + next();
        cubic(x1, y1, x2, y2, x, y);
        c = [x2, y2];
        break;
      }
      case 'Q':
      case 'T': {
        let qx = x;
        let qy = y;
        if (cmd.toUpperCase() === 'Q') [qx, qy] = [ox + next(), oy + next()];
        else if (lastQ) [qx, qy] = [2 * x - lastQ[0], 2 * y - lastQ[1]];
        const [ex, ey] = [ox + next(), oy + next()];
        cubic(x + (2 / 3) * (qx - x), y + (2 / 3) * (qy - y), ex + (2 / 3) * (qx - ex), ey + (2 / 3) * (qy - ey), ex, ey);
        x = ex;
        y = ey;
        q = [qx, qy];
        break;
      }
      case 'A': {
        const rx = Math.abs(next());
        const ry = Math.abs(next());
        const phi = next();
        const large = flag();
        const sweep = flag();
        const ex = ox + next();
        const ey = oy + next();
        for (const seg of arcToBeziers(x, y, rx, ry, phi, large !== 0, sweep !== 0, ex, ey)) cubic(...seg);
        x = ex;
        y = ey;
        break;
      }
      case 'Z':
        out.push('h');
        x = sx;
        y = sy;
        break;
      default:
        i++;
    }
    lastC = c;
    lastQ = q;
    if (cmd.toUpperCase() === 'Z' && isNum(tokens[i])) break; // numbers after Z are malformed: stop there
  }
  return out;
}

type Seg = [number, number, number, number, number, number];

/** SVG elliptical arc (endpoint form, F.6 of SVG 1.1) as cubic Béziers of at most 90° each. */
export function arcToBeziers(x1: number, y1: number, rx: number, ry: number, phiDeg: number, large: boolean, sweep: boolean, x2: number, y2: number): Seg[] {
  if (x1 === x2 && y1 === y2) return [];
  if (rx === 0 || ry === 0) return [[x1, y1, x2, y2, x2, y2]];
  const phi = (phiDeg * Math.PI) / 180;
  const cos = Math.cos(phi);
  const sin = Math.sin(phi);
  const dx = (x1 - x2) / 2;
  const dy = (y1 - y2) / 2;
  const x1p = cos * dx + sin * dy;
  const y1p = -sin * dx + cos * dy;
  const lambda = (x1p * x1p) / (rx * rx) + (y1p * y1p) / (ry * ry);
  if (lambda > 1) {
    rx *= Math.sqrt(lambda);
    ry *= Math.sqrt(lambda);
  }
  const num2 = rx * rx * ry * ry - rx * rx * y1p * y1p - ry * ry * x1p * x1p;
  const den = rx * rx * y1p * y1p + ry * ry * x1p * x1p;
  let coef = Math.sqrt(Math.max(0, num2 / den));
  if (large === sweep) coef = -coef;
  const cxp = (coef * rx * y1p) / ry;
  const cyp = (-coef * ry * x1p) / rx;
  const cx = cos * cxp - sin * cyp + (x1 + x2) / 2;
  const cy = sin * cxp + cos * cyp + (y1 + y2) / 2;
  const angle = (ux: number, uy: number, vx: number, vy: number) => Math.atan2(ux * vy - uy * vx, ux * vx + uy * vy);
  const theta1 = angle(1, 0, (x1p - cxp) / rx, (y1p - cyp) / ry);
  let delta = angle((x1p - cxp) / rx, (y1p - cyp) / ry, (-x1p - cxp) / rx, (-y1p - cyp) / ry);
  if (!sweep && delta > 0) delta -= 2 * Math.PI;
  if (sweep && delta < 0) delta += 2 * Math.PI;
  const n = Math.max(1, Math.ceil(Math.abs(delta) / (Math.PI / 2) - 1e-9));
  const step = delta / n;
  const k = (4 / 3) * Math.tan(step / 4);
  const point = (t: number): [number, number] => [cx + rx * Math.cos(t) * cos - ry * Math.sin(t) * sin, cy + rx * Math.cos(t) * sin + ry * Math.sin(t) * cos];
  const deriv = (t: number): [number, number] => [-rx * Math.sin(t) * cos - ry * Math.cos(t) * sin, -rx * Math.sin(t) * sin + ry * Math.cos(t) * cos];
  const segs: Seg[] = [];
  for (let s = 0; s < n; s++) {
    const a = theta1 + s * step;
    const b = a + step;
    const [ax, ay] = point(a);
    const [bx, by] = s === n - 1 ? [x2, y2] : point(b);
    const [dax, day] = deriv(a);
    const [dbx, dby] = deriv(b);
    segs.push([ax + k * dax, ay + k * day, bx - k * dbx, by - k * dby, bx, by]);
  }
  return segs;
}

function ellipseOps(cx: number, cy: number, rx: number, ry: number): string[] {
  const k = 0.5522847498;
  return [
    `${num(cx + rx)} ${num(cy)} m`,
    `${num(cx + rx)} ${num(cy + k * ry)} ${num(cx + k * rx)} ${num(cy + ry)} ${num(cx)} ${num(cy + ry)} c`,
    `${num(cx - k * rx)} ${num(cy + ry)} ${num(cx - rx)} ${num(cy + k * ry)} ${num(cx - rx)} ${num(cy)} c`,
    `${num(cx - rx)} ${num(cy - k * ry)} ${num(cx - k * rx)} ${num(cy - ry)} ${num(cx)} ${num(cy - ry)} c`,
    `${num(cx + k * rx)} ${num(cy - ry)} ${num(cx + rx)} ${num(cy - k * ry)} ${num(cx + rx)} ${num(cy)} c`,
    'h',
  ];
}

/** Geometry of a shape element as PDF path operators (empty for none or a degenerate shape). */
function shapeOps(el: XmlElement): string[] {
  const a = (k: string) => parseFloat(el.attrs[k] ?? '0') || 0;
  switch (el.name) {
    case 'path':
      return pathOps(el.attrs.d ?? '');
    case 'rect': {
      const [w, h] = [a('width'), a('height')];
      return w > 0 && h > 0 ? [`${num(a('x'))} ${num(a('y'))} ${num(w)} ${num(h)} re`] : [];
    }
    case 'circle':
      return a('r') > 0 ? ellipseOps(a('cx'), a('cy'), a('r'), a('r')) : [];
    case 'ellipse':
      return a('rx') > 0 && a('ry') > 0 ? ellipseOps(a('cx'), a('cy'), a('rx'), a('ry')) : [];
    case 'line':
      return [`${num(a('x1'))} ${num(a('y1'))} m`, `${num(a('x2'))} ${num(a('y2'))} l`];
    case 'polyline':
    case 'polygon': {
      const p = (el.attrs.points ?? '').match(/[+-]?(?:\d*\.\d+|\d+\.?)(?:[eE][+-]?\d+)?/g)?.map(Number) ?? [];
      const ops: string[] = [];
      for (let j = 0; j + 1 < p.length; j += 2) ops.push(`${num(p[j]!)} ${num(p[j + 1]!)} ${j === 0 ? 'm' : 'l'}`);
      if (el.name === 'polygon' && ops.length) ops.push('h');
      return ops;
    }
    default:
      return [];
  }
}

// ---- the drawing ----------------------------------------------------------------------------

class Canvas {
  readonly ops: string[] = [];
  readonly alphas = new Map<string, string>();
  readonly fonts = new Set<FontKey>();
  readonly unsupported = new Set<string>();
  readonly skipped = new Set<string>();
  readonly clips = new Map<string, XmlElement>();

  gs(fill: number, stroke: number): void {
    // Every use is inside q … Q, so full opacity needs no state.
    if (fill >= 1 && stroke >= 1) return;
    const key = `${num(fill)}/${num(stroke)}`;
    let name = this.alphas.get(key);
    if (!name) this.alphas.set(key, (name = `GS${this.alphas.size}`));
    this.ops.push(`/${name} gs`);
  }
}

function rgb(c: Rgba): string {
  return `${num(c.r / 255)} ${num(c.g / 255)} ${num(c.b / 255)}`;
}

const SKIP = new Set(['defs', 'clipPath', 'metadata', 'title', 'desc', 'style', 'script', 'linearGradient', 'radialGradient', 'pattern', 'mask', 'marker', 'symbol', 'filter']);

function indexIds(el: XmlElement, canvas: Canvas): void {
  if (el.name === 'clipPath' && el.attrs.id) canvas.clips.set(el.attrs.id, el);
  for (const c of el.children) if (typeof c !== 'string') indexIds(c, canvas);
}

function applyClip(ref: string | undefined, canvas: Canvas): void {
  const id = /url\(\s*['"]?#([^'")]+)['"]?\s*\)/.exec(ref ?? '')?.[1];
  const clip = id ? canvas.clips.get(id) : undefined;
  if (!clip) return;
  const ops: string[] = [];
  const walk = (el: XmlElement, m: Matrix): void => {
    const mm = multiply(m, parseTransform(el.attrs.transform));
    const geometry = shapeOps(el);
    if (geometry.length) {
      // Each clip shape in its own transform: transform the points by emitting into a temporary frame.
      ops.push(...transformOps(geometry, mm));
    }
    for (const c of el.children) if (typeof c !== 'string') walk(c, mm);
  };
  for (const c of clip.children) if (typeof c !== 'string') walk(c, IDENTITY);
  if (ops.length) canvas.ops.push(...ops, 'W n');
  else canvas.ops.push('0 0 0 0 re W n'); // an empty clip path hides everything
}

/** Path operators with their coordinates transformed by m (a clip path is one path: no `cm` inside). */
function transformOps(ops: string[], m: Matrix): string[] {
  if (m.every((v, i) => v === IDENTITY[i])) return ops;
  const pt = (x: number, y: number) => `${num(m[0] * x + m[2] * y + m[4])} ${num(m[1] * x + m[3] * y + m[5])}`;
  return ops.flatMap((op) => {
    const parts = op.split(' ');
    const k = parts.pop()!;
    const v = parts.map(Number);
    if (k === 're') {
      const [x, y, w, h] = v as [number, number, number, number];
      return [`${pt(x, y)} m`, `${pt(x + w, y)} l`, `${pt(x + w, y + h)} l`, `${pt(x, y + h)} l`, 'h'];
    }
    const out: string[] = [];
    for (let j = 0; j + 1 < v.length; j += 2) out.push(pt(v[j]!, v[j + 1]!));
    return [`${out.join(' ')} ${k}`.trim()];
  });
}

function paint(geometry: string[], s: Style, canvas: Canvas): void {
  const fillAlpha = s.fill ? s.fill.a * s.fillOpacity * s.opacity : 0;
  const stroking = !!s.stroke && s.strokeWidth > 0;
  const strokeAlpha = stroking ? s.stroke!.a * s.strokeOpacity * s.opacity : 0;
  const doFill = fillAlpha > 0;
  const doStroke = strokeAlpha > 0;
  if (!geometry.length || (!doFill && !doStroke) || !s.visible) return;
  canvas.ops.push('q');
  canvas.gs(doFill ? fillAlpha : 1, doStroke ? strokeAlpha : 1);
  if (doFill) canvas.ops.push(`${rgb(s.fill!)} rg`);
  if (doStroke) {
    canvas.ops.push(`${rgb(s.stroke!)} RG`, `${num(s.strokeWidth)} w`, `${s.cap} J`, `${s.join} j`);
    if (s.dash) canvas.ops.push(`[${s.dash.map(num).join(' ')}] 0 d`);
  }
  canvas.ops.push(...geometry);
  const op = doFill && doStroke ? (s.evenOdd ? 'B*' : 'B') : doFill ? (s.evenOdd ? 'f*' : 'f') : 'S';
  canvas.ops.push(op, 'Q');
}

function pdfString(codes: number[]): string {
  let out = '(';
  for (const c of codes) {
    if (c === 0x28 || c === 0x29 || c === 0x5c) out += `\\${String.fromCharCode(c)}`;
    else if (c < 32 || c > 126) out += `\\${c.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(c);
  }
  return `${out})`;
}

interface Piece {
  text: string;
  style: Style;
  /** Absolute position set by this piece (starts a new anchored chunk). */
  x?: number;
  y?: number;
  dx: number;
  dy: number;
}

function collectText(el: XmlElement, parent: Style, pieces: Piece[]): void {
  for (const c of el.children) {
    if (typeof c === 'string') {
      const text = c.replace(/[\r\n]+/g, '');
      if (text) pieces.push({ text, style: parent, dx: 0, dy: 0 });
      continue;
    }
    if (c.name !== 'tspan' && c.name !== 'a' && c.name !== 'textPath') continue;
    const { style, d } = styleOf(c, parent);
    if (d.get('display') === 'none') continue;
    const first = pieces.length;
    const pos: Piece = { text: '', style, dx: length(d.get('dx'), style.fontSize, 0), dy: length(d.get('dy'), style.fontSize, 0) };
    if (c.attrs.x !== undefined) pos.x = parseFloat(c.attrs.x) || 0;
    if (c.attrs.y !== undefined) pos.y = parseFloat(c.attrs.y) || 0;
    pieces.push(pos);
    collectText(c, style, pieces);
    if (pieces.length === first + 1 && !pos.x && !pos.dx && !pos.dy && pos.y === undefined) pieces.pop();
  }
}

function drawText(el: XmlElement, s: Style, canvas: Canvas): void {
  const pieces: Piece[] = [{ text: '', style: s, x: parseFloat(el.attrs.x ?? '0') || 0, y: parseFloat(el.attrs.y ?? '0') || 0, dx: length(el.attrs.dx, s.fontSize, 0), dy: length(el.attrs.dy, s.fontSize, 0) }];
  collectText(el, s, pieces);
  // Lay out: chunks start at every absolute x; each chunk is anchored as a whole.
  let x = 0;
  let y = 0;
  interface Placed {
    runs: TextLayout['runs'];
    overbars: TextLayout['overbars'];
    x: number;
    y: number;
    style: Style;
  }
  const chunks: { anchor: Style['anchor']; width: number; placed: Placed[] }[] = [];
  for (const p of pieces) {
    if (p.x !== undefined || !chunks.length) chunks.push({ anchor: p.style.anchor, width: 0, placed: [] });
    if (p.x !== undefined) x = p.x;
    if (p.y !== undefined) y = p.y;
    x += p.dx;
    y += p.dy;
    if (!p.text) continue;
    const { runs, overbars } = layoutText(p.text, p.style.bold, canvas.unsupported);
    const chunk = chunks.at(-1)!;
    chunk.placed.push({ runs, overbars, x, y, style: p.style });
    const w = runs.reduce((sum, r) => sum + r.width, 0) * p.style.fontSize;
    chunk.width += w;
    x += w;
  }
  for (const chunk of chunks) {
    const shift = chunk.anchor === 'middle' ? -chunk.width / 2 : chunk.anchor === 'end' ? -chunk.width : 0;
    for (const p of chunk.placed) {
      const alpha = p.style.fill ? p.style.fill.a * p.style.fillOpacity * p.style.opacity : 0;
      if (alpha <= 0 || !p.style.visible) continue;
      canvas.ops.push('q');
      canvas.gs(alpha, 1);
      canvas.ops.push(`${rgb(p.style.fill!)} rg`, 'BT', `1 0 0 -1 ${num(p.x + shift)} ${num(p.y)} Tm`);
      for (const r of p.runs) {
        canvas.fonts.add(r.font);
        canvas.ops.push(`/${r.font} ${num(p.style.fontSize)} Tf`, `${pdfString(r.codes)} Tj`);
      }
      canvas.ops.push('ET');
      // Overbars: 0.06 em thick, 0.86 em above the baseline (clear of capitals, 0.72 em).
      const fs = p.style.fontSize;
      for (const [from, to] of p.overbars) canvas.ops.push(`${num(p.x + shift + from * fs)} ${num(p.y - 0.86 * fs)} ${num((to - from) * fs)} ${num(0.06 * fs)} re`, 'f');
      canvas.ops.push('Q');
    }
  }
}

function draw(node: XmlNode, parent: Style, canvas: Canvas): void {
  if (typeof node === 'string') return;
  if (SKIP.has(node.name)) return;
  if (node.name === 'image' || node.name === 'foreignObject') {
    canvas.skipped.add(node.name);
    return;
  }
  const { style, d } = styleOf(node, parent);
  if (d.get('display') === 'none') return;
  const m = node.name === 'svg' ? IDENTITY : parseTransform(node.attrs.transform);
  const isIdentity = m.every((v, i) => v === IDENTITY[i]);
  const clip = d.get('clip-path');
  const wrap = !isIdentity || !!clip;
  if (wrap) canvas.ops.push('q');
  if (!isIdentity) canvas.ops.push(`${m.map(num).join(' ')} cm`);
  if (clip) applyClip(clip, canvas);
  if (node.name === 'text') drawText(node, style, canvas);
  else if (node.name === 'g' || node.name === 'svg' || node.name === 'a' || node.name === 'switch') for (const c of node.children) draw(c, style, canvas);
  else paint(shapeOps(node), style, canvas);
  if (wrap) canvas.ops.push('Q');
}

// ---- the file -------------------------------------------------------------------------------

export interface PdfManifest {
  /** Name of the attached file, e.g. `figure.manifest.json`. */
  fileName: string;
  /** The manifest JSON text. */
  json: string;
}

export interface SvgToPdfOptions {
  title?: string;
  manifest?: PdfManifest;
  creationDate?: Date;
}

export interface SvgToPdfResult {
  pdf: Uint8Array;
  /** Characters the standard fonts cannot show (written as '?' or, for combining marks, dropped). */
  unsupported: string[];
  /** Elements left out (raster <image>, <foreignObject>). */
  skipped: string[];
}

/** Latin-1 bytes of a string of char codes < 256. */
function latin1(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let j = 0; j < text.length; j++) out[j] = text.charCodeAt(j) & 0xff;
  return out;
}

/** A text string for the document information: UTF-16BE with a BOM, as hex. */
function pdfTextString(text: string): string {
  let hex = 'FEFF';
  for (let j = 0; j < text.length; j++) hex += text.charCodeAt(j).toString(16).toUpperCase().padStart(4, '0');
  return `<${hex}>`;
}

function pdfDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `(D:${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z)`;
}

export function svgToPdf(svg: string, options: SvgToPdfOptions = {}): SvgToPdfResult {
  const root = parseXml(svg);
  if (root.name !== 'svg') throw new Error(`SVG: the root element is <${root.name}>, not <svg>`);
  const view = (root.attrs.viewBox ?? '').split(/[\s,]+/).filter(Boolean).map(Number);
  const width = parseFloat(root.attrs.width ?? '') || view[2] || 0;
  const height = parseFloat(root.attrs.height ?? '') || view[3] || 0;
  if (!(width > 0 && height > 0)) throw new Error('SVG: the figure has no width and height');
  const pt = 0.75;
  const canvas = new Canvas();
  indexIds(root, canvas);
  canvas.ops.push(`${num(pt)} 0 0 ${num(-pt)} 0 ${num(height * pt)} cm`);
  if (view.length === 4 && view[2]! > 0 && view[3]! > 0 && (view[0] !== 0 || view[1] !== 0 || view[2] !== width || view[3] !== height)) {
    canvas.ops.push(`${num(width / view[2]!)} 0 0 ${num(height / view[3]!)} ${num((-view[0]! * width) / view[2]!)} ${num((-view[1]! * height) / view[3]!)} cm`);
  }
  canvas.ops.push(`0 0 ${num(width)} ${num(height)} re W n`);
  draw(root, INITIAL, canvas);

  const content = `${canvas.ops.join('\n')}\n`;
  const objects: (string | { dict: string; data: string })[] = [];
  const add = (o: string | { dict: string; data: string }): number => objects.push(o);
  const catalogId = add('');
  const pagesId = add('');
  const pageId = add('');
  const contentId = add({ dict: '', data: content });
  const fontIds = new Map<FontKey, number>();
  for (const f of [...canvas.fonts].sort()) fontIds.set(f, add(`<< /Type /Font /Subtype /Type1 /BaseFont /${FONT_NAMES[f]}${f === 'F3' ? '' : ' /Encoding /WinAnsiEncoding'} >>`));
  let names = '';
  if (options.manifest) {
    const bytes = new TextEncoder().encode(options.manifest.json);
    let data = '';
    for (const b of bytes) data += String.fromCharCode(b);
    const fileId = add({ dict: `/Type /EmbeddedFile /Subtype /application#2Fjson /Params << /Size ${bytes.length} >>`, data });
    const specId = add(
      `<< /Type /Filespec /F ${pdfTextString(options.manifest.fileName)} /UF ${pdfTextString(options.manifest.fileName)} /EF << /F ${fileId} 0 R /UF ${fileId} 0 R >> /Desc ${pdfTextString('Reproducibility manifest of this figure')} /AFRelationship /Supplement >>`,
    );
    names = ` /Names << /EmbeddedFiles << /Names [${pdfTextString(options.manifest.fileName)} ${specId} 0 R] >> >> /AF [${specId} 0 R]`;
  }
  const created = pdfDate(options.creationDate ?? new Date());
  const info = [
    options.title ? `/Title ${pdfTextString(options.title)}` : '',
    `/Producer ${pdfTextString('Fairground figure export (vector PDF from the plotly SVG)')}`,
    `/Creator ${pdfTextString('Fairground')}`,
    options.manifest ? `/Subject ${pdfTextString(`Reproducibility manifest attached as ${options.manifest.fileName}`)}` : '',
    options.manifest ? `/FairgroundManifest ${pdfTextString(options.manifest.json)}` : '',
    `/CreationDate ${created}`,
  ]
    .filter(Boolean)
    .join(' ');
  const infoId = add(`<< ${info} >>`);
  objects[catalogId - 1] = `<< /Type /Catalog /Pages ${pagesId} 0 R${names} >>`;
  objects[pagesId - 1] = `<< /Type /Pages /Kids [${pageId} 0 R] /Count 1 >>`;
  const fonts = [...fontIds].map(([k, id]) => `/${k} ${id} 0 R`).join(' ');
  const gstates = [...canvas.alphas].map(([key, name]) => {
    const [ca, CA] = key.split('/');
    return `/${name} << /Type /ExtGState /ca ${ca} /CA ${CA} >>`;
  });
  objects[pageId - 1] =
    `<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 ${num(width * pt)} ${num(height * pt)}] /Resources << /ProcSet [/PDF /Text]` +
    `${fonts ? ` /Font << ${fonts} >>` : ''}${gstates.length ? ` /ExtGState << ${gstates.join(' ')} >>` : ''} >> /Contents ${contentId} 0 R >>`;

  // Serialize: every character code is one byte (content and names are ASCII; the manifest is UTF-8 bytes).
  let out = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((o, k) => {
    offsets.push(out.length);
    out += `${k + 1} 0 obj\n`;
    if (typeof o === 'string') out += `${o}\n`;
    else out += `<< ${o.dict ? `${o.dict} ` : ''}/Length ${o.data.length} >>\nstream\n${o.data}\nendstream\n`;
    out += 'endobj\n';
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  const id = fnv(content + (options.manifest?.json ?? ''));
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalogId} 0 R /Info ${infoId} 0 R /ID [<${id}> <${id}>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return { pdf: latin1(out), unsupported: [...canvas.unsupported], skipped: [...canvas.skipped] };
}

/** A 128-bit hex file identifier from the content (four FNV-1a hashes). */
function fnv(text: string): string {
  let out = '';
  for (let seed = 0; seed < 4; seed++) {
    let h = 0x811c9dc5 ^ seed;
    for (let j = 0; j < text.length; j++) {
      h ^= text.charCodeAt(j);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    out += h.toString(16).padStart(8, '0');
  }
  return out;
}
