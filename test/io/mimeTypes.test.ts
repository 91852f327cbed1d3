import { describe, expect, it } from 'vitest';
import { mimeType as appMime } from '../../src-main/app/appProtocol';
import { mimeType } from '../../src-main/io/mimeTypes';

describe('one media-type table for app:// and browser mode (#16.9)', () => {
  it('types the renderer build the same in both shells', () => {
    expect(appMime).toBe(mimeType);
    expect(mimeType('/x/index.HTML')).toBe('text/html; charset=utf-8');
    expect(mimeType('a.mjs')).toBe('text/javascript; charset=utf-8');
    // Before: app:// sent application/json without a charset, the server with one; .ico only over HTTP.
    expect(mimeType('data.json')).toBe('application/json; charset=utf-8');
    expect(mimeType('favicon.ico')).toBe('image/x-icon');
    expect(mimeType('index.js.map')).toBe('application/json; charset=utf-8');
    expect(mimeType('model.gguf')).toBe('application/octet-stream');
  });
});
