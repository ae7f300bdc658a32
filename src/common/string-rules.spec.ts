import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { charLength } from './char-length.js';
import { validatedWithoutFastPath } from './http/validated.js';
import { isFreeText, isPublicHttpsUrl, isSingleLine, singleLineFault } from './string-rules.js';
import { Line, Text } from './validation.js';

const CONTROL_CODES = [
  ...Array.from({ length: 0x20 }, (_, i) => i),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
];
const controlCharacter = fc.constantFrom(...CONTROL_CODES.map((c) => String.fromCharCode(c)));
/** Characters that show nothing: a value of only these is blank. */
const invisible = fc.constantFrom(
  ' ',
  '\u00a0',
  '\u2003',
  '\u3000',
  '\u200b',
  '\u200d',
  '\u2060',
  '\u00ad',
  '\ufeff',
  '\u3164',
  '\u115f',
);

describe('single-line strings (docs/BEHAVIOUR.md#limits)', () => {
  it('refuse CR, LF, tab, every C0 and C1 control character and the Unicode line separators', () => {
    for (const bad of ['a\nb', 'a\r\nb', 'a\rb', '\tab', 'ab\u0085', 'a\u2028b', 'a\u2029b']) {
      expect(singleLineFault(bad, 1, 100)).toBe('control');
    }
    for (const code of CONTROL_CODES) {
      expect(isSingleLine(`x${String.fromCharCode(code)}y`, 1, 100)).toBe(false);
    }
  });

  it('refuse blank values: white space or invisible characters alone', () => {
    for (const blank of [' ', '   ', '\u00a0', '\u3000 ', '\u200b', '\u3164', '\ufeff\u200d']) {
      expect(singleLineFault(blank, 1, 100)).toBe('blank');
    }
  });

  it('take names as people write them, spaces inside or around included', () => {
    for (const ok of ['Ada', ' Ada Lovelace ', 'İstanbul', '東京都', '👩🏽‍💻', 'O’Brien', 'a\u00a0b']) {
      expect(isSingleLine(ok, 1, 200)).toBe(true);
    }
  });

  it('count length in code points, as @Chars does', () => {
    expect(singleLineFault('', 1, 10)).toBe('length');
    expect(singleLineFault('😀'.repeat(10), 1, 10)).toBeUndefined();
    expect(singleLineFault('😀'.repeat(11), 1, 10)).toBe('length');
    expect(singleLineFault(42, 1, 10)).toBe('length');
  });

  it('a string is single-line exactly when it has no control character and something visible (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'grapheme' }), controlCharacter, invisible), {
          maxLength: 6,
        }),
        (parts) => {
          const value = parts.join('');
          const codes = Array.from(value, (c) => c.codePointAt(0)!);
          const hasControl = codes.some(
            (c) => c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029,
          );
          const visible = Array.from(value).some(
            (c) => !/^[\p{White_Space}\p{Default_Ignorable_Code_Point}]$/u.test(c),
          );
          const length = charLength(value);
          expect(isSingleLine(value, 1, 40)).toBe(
            !hasControl && visible && length >= 1 && length <= 40,
          );
        },
      ),
    );
  });
});

describe('free text (notes)', () => {
  it('holds line breaks and tabs, refuses other control characters', () => {
    expect(isFreeText('Line one\r\nLine two\tand a tab\n', 0, 500)).toBe(true);
    expect(isFreeText('', 0, 500)).toBe(true);
    for (const bad of ['bell\u0007', 'esc\u001b[31m', 'del\u007f', 'nel\u0085', 'vt\u000b']) {
      expect(isFreeText(bad, 0, 500)).toBe(false);
    }
  });
});

describe('tracking URLs', () => {
  it('https, no user or password part, at most the given length, on one line', () => {
    expect(isPublicHttpsUrl('https://www.ups.com/track?tracknum=1Z9', 2000)).toBe(true);
    expect(isPublicHttpsUrl('https://carrier.example/a@b', 2000)).toBe(true);
    expect(isPublicHttpsUrl(`https://carrier.example/${'a'.repeat(1976)}`, 2000)).toBe(true);
    for (const bad of [
      'https://user:pass@carrier.example/1',
      'https://user@carrier.example/1',
      'https://:pass@carrier.example/1',
      'http://carrier.example/1',
      'ftp://carrier.example/1',
      'carrier.example/1',
      'https://carrier.example/1\n',
      'https://carrier.example/\u0007',
      'https://evil.example\\@carrier.example/',
      `https://carrier.example/${'a'.repeat(1977)}`,
      '',
    ]) {
      expect({ bad, ok: isPublicHttpsUrl(bad, 2000) }).toEqual({ bad, ok: false });
    }
  });
});

class Sample {
  @Line(1, 10)
  name!: string;

  @Text(0, 20)
  note!: string;
}

describe('@Line and @Text through the ValidationPipe', () => {
  const validate = (body: object) =>
    validatedWithoutFastPath.transform(body, { type: 'body', metatype: Sample });
  const detailsOf = async (body: object) => {
    try {
      await validate(body);
      return [];
    } catch (error) {
      return (error as { options: { details: unknown[] } }).options.details;
    }
  };

  it('name the fault: control characters, blank, or the length once', async () => {
    expect(await detailsOf({ name: 'Ada', note: 'a\nb' })).toEqual([]);
    expect(await detailsOf({ name: 'A\nda', note: '' })).toEqual([
      { field: 'name', message: 'must be on one line, without control characters' },
    ]);
    expect(await detailsOf({ name: ' ', note: '' })).toEqual([
      { field: 'name', message: 'must not be blank' },
    ]);
    expect(await detailsOf({ name: '', note: '' })).toEqual([
      { field: 'name', message: 'must be 1 to 10 characters' },
    ]);
    expect(await detailsOf({ name: 'Ada', note: '\u001b[2J' })).toEqual([
      {
        field: 'note',
        message: 'must not contain control characters other than line breaks and tabs',
      },
    ]);
  });
});
