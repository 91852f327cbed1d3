/**
 * A small XML reader for the SVG that plotly's toImage writes (well-formed, no DTD): elements with
 * attributes, text (entities decoded), CDATA; comments and processing instructions are skipped.
 * Pure (no DOM), so the figure exporters run the same in the renderer and in Node tests.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+);/g, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[body] ?? whole;
  });
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Parses one document; throws an Error naming the offset of the first malformed construct. */
export function parseXml(source: string): XmlElement {
  let i = 0;
  const root: XmlElement = { name: '#document', attrs: {}, children: [] };
  const stack: XmlElement[] = [root];
  const fail = (what: string): never => {
    throw new Error(`SVG: ${what} at character ${i}`);
  };
  while (i < source.length) {
    const lt = source.indexOf('<', i);
    if (lt < 0) {
      const text = source.slice(i);
      if (text.trim()) stack.at(-1)!.children.push(decodeEntities(text));
      break;
    }
    if (lt > i) stack.at(-1)!.children.push(decodeEntities(source.slice(i, lt)));
    i = lt;
    if (source.startsWith('<!--', i)) {
      const end = source.indexOf('-->', i + 4);
      if (end < 0) fail('unterminated comment');
      i = end + 3;
    } else if (source.startsWith('<![CDATA[', i)) {
      const end = source.indexOf(']]>', i + 9);
      if (end < 0) fail('unterminated CDATA section');
      stack.at(-1)!.children.push(source.slice(i + 9, end));
      i = end + 3;
    } else if (source.startsWith('<?', i) || source.startsWith('<!', i)) {
      const end = source.indexOf('>', i);
      if (end < 0) fail('unterminated declaration');
      i = end + 1;
    } else if (source.startsWith('</', i)) {
      const end = source.indexOf('>', i);
      if (end < 0) fail('unterminated end tag');
      const name = source.slice(i + 2, end).trim();
      const open = stack.pop();
      if (!open || open === root || open.name !== name) fail(`end tag </${name}> does not close <${open?.name ?? ''}>`);
      i = end + 1;
    } else {
      const m = /^<([A-Za-z_][\w:.-]*)/.exec(source.slice(i, i + 200));
      if (!m) fail('malformed tag');
      const el: XmlElement = { name: m![1]!, attrs: {}, children: [] };
      i += m![0].length;
      const attrRe = /\s*([A-Za-z_][\w:.-]*)\s*=\s*("([^"]*)"|'([^']*)')|\s*(\/?>)/y;
      for (;;) {
        attrRe.lastIndex = i;
        const a = attrRe.exec(source);
        if (!a) fail(`malformed attribute in <${el.name}>`);
        i = attrRe.lastIndex;
        if (a![5]) {
          stack.at(-1)!.children.push(el);
          if (a![5] === '>') stack.push(el);
          break;
        }
        el.attrs[a![1]!] = decodeEntities(a![3] ?? a![4] ?? '');
      }
    }
  }
  if (stack.length > 1) fail(`<${stack.at(-1)!.name}> is not closed`);
  const first = root.children.find((c): c is XmlElement => typeof c !== 'string');
  if (!first) throw new Error('SVG: no root element');
  return first;
}
