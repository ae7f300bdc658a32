import fc from 'fast-check';

/**
 * fast-check generators of hostile HTTP input for test/hostile-input.e2e-spec.ts: JSON bodies
 * (junk and structured-but-wrong), raw body text, path segments, query strings and header
 * values. Only what a real client can put on the wire: header values are limited to the bytes
 * Node's HTTP client accepts (it refuses anything else before sending).
 */

/** A JSON literal written verbatim (`-0`, `1e400`, 300-digit integers, `1.0`). */
export class RawJson {
  constructor(readonly text: string) {}
}

export type HostileJson =
  null | boolean | number | string | RawJson | HostileJson[] | { [key: string]: HostileJson };

/**
 * JSON text of a value. Own `__proto__` keys are written as keys (JSON.parse makes them own
 * properties too); RawJson is written as is; what JSON cannot hold becomes `null`.
 */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((v: unknown) => toJsonText(v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const members = Object.keys(object).map(
      (key) => `${JSON.stringify(key)}:${toJsonText(object[key])}`,
    );
    return `{${members.join(',')}}`;
  }
  if (typeof value === 'bigint') return value.toString();
  return JSON.stringify(value) ?? 'null';
}

/** A shallow copy with `key` set as an own property (even `__proto__`). */
export function withOwn<T extends object>(object: T, key: string, value: unknown): T {
  const copy = (Array.isArray(object) ? [...object] : { ...object }) as T;
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

// ---------------------------------------------------------------------------------------------
// Leaves

export const NUMBER_LITERALS = [
  '1e308',
  '-1e308',
  '1e400',
  '-1e400',
  '-0',
  '-0.0',
  '0',
  '1.005',
  '0.1',
  '1.0',
  '1E2',
  '2e0',
  '-1',
  '10000',
  '10001',
  '4.9e-324',
  '9007199254740991',
  '9007199254740993',
  '18446744073709551616',
  '123456789012345678901234567890',
  '9'.repeat(300),
  `-${'9'.repeat(300)}`,
  `0.${'0'.repeat(300)}1`,
  '1.999999999999999999999',
] as const;

export const hostileNumber: fc.Arbitrary<HostileJson> = fc.oneof(
  fc.constantFrom(...NUMBER_LITERALS).map((text) => new RawJson(text)),
  fc.integer(),
  fc.integer({ min: -2, max: 10_002 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.bigInt({ min: -(10n ** 300n), max: 10n ** 300n }).map((n) => new RawJson(n.toString())),
);

/** Lone UTF-16 surrogates: JSON.stringify writes them as `\ud800` escapes, as a client would. */
const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff'] as const;

export const SPECIAL_STRINGS = [
  '',
  ' ',
  '\t',
  '\n',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e308',
  '1.005',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  "' OR 1=1 --",
  "'); DROP TABLE orders; --",
  '$1',
  '\\',
  '\\u0000',
  '%00',
  '%E0%A4%A',
  '\u202e\u0041',
  '\ufeff',
  '\uffff',
  '\u{10ffff}',
  'a@b',
  'a@b.c',
  'ada@example.com',
  'ADA@EXAMPLE.COM',
  'ada@example.com\u0000',
  'pending',
  'paid',
  'PAID',
  ' paid',
  'shipped',
  'refunded',
  'client_credentials',
] as const;

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }))
      .map(([a, b]) => `${a}\u0000${b}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.string({ maxLength: 10 }),
        fc.constantFrom(...LONE_SURROGATES),
        fc.string({ maxLength: 10 }),
      )
      .map(([a, s, b]) => `${a}${s}${b}`),
  },
  // 'a\uFE0F' is 2 code points: 100 of them are 200 (the bound), more exceed it.
  { weight: 1, arbitrary: fc.integer({ min: 95, max: 150 }).map((n) => 'a\uFE0F'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 210 }).map((n) => '😀'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 95, max: 300 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 190, maxLength: 300 }) },
  { weight: 1, arbitrary: fc.emailAddress() },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.emailAddress())
      .map(([a, b]) => `${a}${b}`),
  },
);

export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    'toJSON',
    'isPrototypeOf',
    '__defineGetter__',
    'then',
    'length',
    'admin',
    'id',
    'status',
    'total',
    'unit_price',
    'price',
    'tenant_id',
    'app_id',
    'customer_id',
    'source',
    '',
    ' ',
    '\u0000',
    '\ud800',
    'a.b',
    'items[0]',
    '$where',
  ),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
);

/** Names every JavaScript object answers to: as metadata keys they are keys like any other. */
export const OBJECT_NAMES = [
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
] as const;

/**
 * A metadata key of 3.4's pattern `[A-Za-z0-9_.-]{1,40}` other than the three it refuses, with
 * the names every JavaScript object answers to (`toString`, `__defineGetter__`…) well represented.
 */
export const metadataKey: fc.Arbitrary<string> = fc
  .oneof(
    fc.constantFrom(
      ...OBJECT_NAMES,
      'toJSON',
      'then',
      'length',
      '__proto',
      'proto__',
      'Constructor',
      'PROTOTYPE',
      '.',
      '-',
      '_',
    ),
    fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/),
  )
  .filter((key) => key !== '__proto__' && key !== 'constructor' && key !== 'prototype');

/** Any hostile JSON value, shallow to moderately nested. */
export const hostileValue: fc.Arbitrary<HostileJson> = fc.letrec<{ value: HostileJson }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: hostileString },
    { weight: 2, arbitrary: hostileNumber },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 })
        .map((entries) =>
          entries.reduce<{ [key: string]: HostileJson }>(
            (object, [key, value]) => withOwn(object, key, value),
            {},
          ),
        ),
    },
  ),
})).value;

/** Arrays or objects nested `depth` levels (the service refuses deeper than 32). */
export const deepNesting: fc.Arbitrary<HostileJson> = fc
  .tuple(fc.integer({ min: 1, max: 50 }), fc.array(fc.boolean(), { minLength: 50, maxLength: 50 }))
  .map(([depth, kinds]) => {
    let value: HostileJson = 1;
    for (let i = 0; i < depth; i++) value = kinds[i] ? [value] : { a: value };
    return value;
  });

/** Whole-body junk: fc's JSON values, fc.anything, hostile values, deep nesting. */
export const junkJson: fc.Arbitrary<HostileJson> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<HostileJson>,
  fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }) as fc.Arbitrary<HostileJson>,
  fc.anything({ maxDepth: 3, withNullPrototype: true }) as fc.Arbitrary<HostileJson>,
  hostileValue,
  deepNesting,
);

/** Text that is not valid JSON, or JSON no parser should treat kindly. */
export const INVALID_JSON_TEXTS = [
  '',
  ' ',
  '{',
  '}',
  '{"a":',
  '{"a":1,}',
  '[1,]',
  "{'a':1}",
  '{a:1}',
  'NaN',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":-Infinity}',
  '{"a":undefined}',
  '{"a":01}',
  '{"a":.5}',
  '{"a":0x10}',
  '{"a":1}{"b":2}',
  '{"a":1} x',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '{"a":"\t"}',
  '{"a":1 /* comment */}',
  '\ufeff{}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '{"a":1,"a":2}',
  '"just a string"',
  '12',
  'null',
  'true',
  '[]',
  '[[]]',
  '[null]',
  '{"a":"\\ud800"}',
  '\u0000',
  '{"a":"b"}\u0000',
] as const;

/** Where a nested `__proto__`/`constructor` member is spliced into a valid body's JSON text. */
export function spliceMember(text: string, member: string, occurrence: number): string {
  const positions: number[] = [];
  for (let i = 0; i < text.length; i++) if (text[i] === '{') positions.push(i);
  if (positions.length === 0) return text;
  const at = positions[occurrence % positions.length] + 1;
  const rest = text.slice(at);
  return `${text.slice(0, at)}${member}${rest.startsWith('}') ? '' : ','}${rest}`;
}

export const PROTO_MEMBERS = [
  '"__proto__":{"admin":true}',
  '"__proto__":null',
  '"__proto__":[]',
  '"constructor":{"prototype":{"admin":true}}',
  '"constructor":1',
  '"prototype":{}',
  '"toString":"x"',
  '"hasOwnProperty":null',
] as const;

// ---------------------------------------------------------------------------------------------
// Structured-but-wrong bodies: a valid body with a few fields replaced, removed or added.

export type FieldPath = readonly (string | number)[];

type Mutation =
  | { kind: 'set'; path: FieldPath; value: HostileJson }
  | { kind: 'delete'; path: FieldPath }
  | { kind: 'add'; path: FieldPath; key: string; value: HostileJson };

function getAt(value: unknown, path: FieldPath): unknown {
  let current = value;
  for (const step of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[String(step)];
  }
  return current;
}

function updateAt(value: unknown, path: FieldPath, update: (old: unknown) => unknown): unknown {
  if (path.length === 0) return update(value);
  if (value === null || typeof value !== 'object') return value;
  const [head, ...rest] = path;
  const key = String(head);
  if (!Object.prototype.hasOwnProperty.call(value, key)) return value;
  const child = (value as Record<string, unknown>)[key];
  return withOwn(value, key, updateAt(child, rest, update));
}

function applyMutation(body: unknown, mutation: Mutation): unknown {
  if (mutation.kind === 'add') {
    return updateAt(body, mutation.path, (p) =>
      p !== null && typeof p === 'object' && !Array.isArray(p)
        ? withOwn(p, mutation.key, mutation.value)
        : p,
    );
  }
  const parent = mutation.path.slice(0, -1);
  const last = mutation.path[mutation.path.length - 1];
  if (mutation.kind === 'set') {
    if (last === undefined) return mutation.value;
    if (getAt(body, parent) === undefined) return body;
    return updateAt(body, parent, (p) =>
      p !== null && typeof p === 'object' ? withOwn(p, String(last), mutation.value) : p,
    );
  }
  if (last === undefined) return body;
  return updateAt(body, parent, (p) => {
    if (p === null || typeof p !== 'object') return p;
    if (Array.isArray(p)) return p.filter((_, i) => i !== Number(last));
    const copy = { ...(p as Record<string, unknown>) };
    delete copy[String(last)];
    return copy;
  });
}

/**
 * A valid body (from `valid`) with 0–3 mutations at `fields`: wrong types and hostile values
 * for every field, removed fields and unknown ones. `special` adds values meant for one field
 * (items: [[]], [null], 101 lines...).
 */
export function mutatedBody(
  valid: fc.Arbitrary<HostileJson>,
  fields: readonly FieldPath[],
  special: ReadonlyArray<readonly [FieldPath, fc.Arbitrary<HostileJson>]> = [],
): fc.Arbitrary<HostileJson> {
  const objects = [[], ...fields.filter((f) => f.length > 0)] as FieldPath[];
  const setters: Array<fc.Arbitrary<Mutation>> = [
    fc
      .tuple(fc.constantFrom(...fields), hostileValue)
      .map(([path, value]): Mutation => ({ kind: 'set', path, value })),
    ...special.map(([path, values]) =>
      values.map((value): Mutation => ({ kind: 'set', path, value })),
    ),
  ];
  const mutation = fc.oneof(
    { weight: 6, arbitrary: fc.oneof(...setters) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...fields).map((path): Mutation => ({ kind: 'delete', path })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...objects), hostileKey, hostileValue)
        .map(([path, key, value]): Mutation => ({ kind: 'add', path, key, value })),
    },
  );
  return fc
    .tuple(valid, fc.array(mutation, { maxLength: 3 }))
    .map(([body, mutations]) => mutations.reduce(applyMutation, body as unknown) as HostileJson);
}

// ---------------------------------------------------------------------------------------------
// Request parts

export interface BodySpec {
  text: string;
  /** Undefined: no Content-Type header at all. */
  contentType?: string;
  /** latin1: each character sent as one byte, so non-ASCII text is invalid UTF-8 on the wire. */
  encoding?: 'utf8' | 'latin1';
}

export const CONTENT_TYPE_VARIANTS = [
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json;charset=UTF-16',
  'APPLICATION/JSON',
  'application/json;',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/jsonx',
  'application/json, text/plain',
  'text/plain',
  'text/json',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '*/*',
  '',
  ' ',
] as const;

/** Mostly JSON, sometimes a wrong or missing media type. */
export function contentType(json = 'application/json'): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(json) },
    { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPE_VARIANTS) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/**
 * Body text for a JSON route: structured-but-wrong (most), whole-body junk, invalid JSON text,
 * and valid bodies with `__proto__`/`constructor` members spliced into their raw text.
 */
export function jsonBodyText(structured: fc.Arbitrary<HostileJson>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: structured.map(toJsonText) },
    { weight: 3, arbitrary: junkJson.map(toJsonText) },
    { weight: 2, arbitrary: fc.constantFrom(...INVALID_JSON_TEXTS) },
    {
      weight: 1,
      arbitrary: fc.tuple(structured, fc.nat()).map(([body, cut]) => {
        const text = toJsonText(body);
        return text.slice(0, cut % Math.max(1, text.length));
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(structured, fc.constantFrom(...PROTO_MEMBERS), fc.nat())
        .map(([body, member, at]) => spliceMember(toJsonText(body), member, at)),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
  );
}

export function jsonBody(structured: fc.Arbitrary<HostileJson>): fc.Arbitrary<BodySpec> {
  return fc
    .tuple(jsonBodyText(structured), contentType(), fc.constantFrom(...ENCODINGS))
    .map(([text, type, encoding]) => ({ text, contentType: type, encoding }));
}

/** Mostly UTF-8; sometimes raw single bytes (invalid UTF-8 for anything past ASCII). */
const ENCODINGS = ['utf8', 'utf8', 'utf8', 'utf8', 'utf8', 'utf8', 'utf8', 'latin1'] as const;

/** A byte string Node's HTTP client sends as a header value (tab, printable ASCII, 0x80–0xff). */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({
    unit: fc
      .oneof(
        { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
        { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
        { weight: 1, arbitrary: fc.constant(0x09) },
      )
      .map((code) => String.fromCharCode(code)),
    maxLength: 60,
  }),
  fc.string({ unit: 'grapheme-ascii', minLength: 200, maxLength: 300 }),
);

/** What Node's HTTP client accepts in a header value. */
export function isSendableHeaderValue(value: string): boolean {
  return /^[\t\x20-\x7e\x80-\xff]*$/.test(value);
}

/** The bytes of a string as UTF-8, percent-encoded; lone surrogates as their WTF-8 bytes. */
export function percentEncode(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

export const PATH_SEGMENT_JUNK = [
  '0',
  '-1',
  '-0',
  '1e3',
  '1.0',
  '01',
  '+1',
  '0x1F',
  '1%20',
  '%201',
  '9007199254740991',
  '9007199254740993',
  '999999999999999',
  '1000000000000000',
  'NaN',
  'Infinity',
  'null',
  'undefined',
  'true',
  '__proto__',
  'constructor',
  'toString',
  '%2F',
  'a%2Fb',
  '%2f..%2f..%2f',
  '..%2F..%2Fhealth%2Flive',
  '%2e%2e',
  '%5C',
  '%',
  '%%',
  '%E0%A4%A',
  '%00',
  '1%00',
  '%ED%A0%80',
  '%C0%AF',
  '%C0%80',
  '%FF',
  '%FE%FF',
  '%zz',
  '%F0%9F%98%80',
  '%EF%B8%8F',
  '%25',
  '%25%32%46',
  ';',
  ':id',
  '*',
  '~',
  '!',
  "'",
  '(',
  ')',
  ',',
] as const;

/** A path segment, already encoded as a client would send it (or deliberately broken). */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PATH_SEGMENT_JUNK) },
  { weight: 2, arbitrary: hostileString.map(percentEncode) },
  { weight: 2, arbitrary: fc.stringMatching(/^\d{1,300}$/) },
  { weight: 1, arbitrary: fc.integer({ min: 16, max: 300 }).map((n) => '9'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 100 }).map((n) => '😀'.repeat(n)) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      // Past the 2,048-character parameter limit (414).
      { weight: 4, arbitrary: fc.integer({ min: 2000, max: 2100 }).map((n) => 'a'.repeat(n)) },
      // Past the 16 KiB request-line-and-headers limit: answered by Node's parser error handler.
      { weight: 1, arbitrary: fc.constantFrom('9'.repeat(17_000), '%41'.repeat(6_000)) },
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(hostileString, fc.constantFrom(...PATH_SEGMENT_JUNK), hostileString)
      .map(([a, j, b]) => `${percentEncode(a)}${j}${percentEncode(b)}`),
  },
);

const QUERY_KEYS = [
  'page',
  'limit',
  'status',
  'cursor',
  'sort',
  'email',
  'customer_id',
  'created_after',
  'updated_after',
  'sku',
  'active',
  'tag',
  'metadata[k]',
  'access_token',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'toJSON',
  'then',
  'page[]',
  'page[0]',
  'a[b]',
  '',
  '%',
  '%00',
  '%E0%A4%A',
  '%ED%A0%80',
  'x%2By',
  '+',
] as const;

const QUERY_VALUES = [
  '1',
  '0',
  '-1',
  '-0',
  '1e308',
  '1e3',
  '1.005',
  '1.0',
  '01',
  '+1',
  ' 1',
  'NaN',
  'Infinity',
  '100',
  '101',
  '20',
  '',
  'pending',
  'paid',
  'PAID',
  'pending,paid',
  'refunded',
  'true',
  'false',
  'TRUE',
  '2026-01-01T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '999999999999999',
  '9'.repeat(16),
  '9'.repeat(300),
  '%',
  '%00',
  '%E0%A4%A',
  '%ED%A0%80',
  '%FF',
  '+',
  'a+b',
  '%2B',
  '=',
  '==',
  '[]',
  '{}',
] as const;

/** A query string (without `?`): random and known keys, repeated keys, percent junk. */
export const hostileQuery: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...QUERY_KEYS), hostileString.map(percentEncode)),
      fc.option(fc.oneof(fc.constantFrom(...QUERY_VALUES), hostileString.map(percentEncode)), {
        nil: undefined,
      }),
      fc.constantFrom('&', '&', '&', '&&', ';'),
    ),
    { maxLength: 6 },
  )
  .map((pairs) =>
    pairs
      .map(
        ([key, value, sep], i) =>
          `${i > 0 ? sep : ''}${key}${value === undefined ? '' : `=${value}`}`,
      )
      .join(''),
  );

/** `path` with a hostile query string most of the time. */
export function withQuery(path: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(path, fc.option(hostileQuery, { freq: 3, nil: undefined }))
    .map(([p, q]) => (q === undefined ? p : `${p}?${q}`));
}

/** Client addresses a storefront backend might pass in X-Customer-IP, valid and not. */
export const customerIp: fc.Arbitrary<string> = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.ipV4Extended(),
  fc.constantFrom(
    ' 203.0.113.9 ',
    '::ffff:203.0.113.9',
    '::ffff:7f00:1',
    '::1.2.3.4',
    'fe80::1%eth0',
    'fe80::1%25eth0',
    '1.2.3.4, 5.6.7.8',
    '999.1.1.1',
    '1.2.3',
    '01.02.03.04',
    '::',
    '0.0.0.0',
    '1::2::3',
    '::ffff:999.1.1.1',
    'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    '[::1]',
    '',
  ),
  headerValue,
);

/** Idempotency-Key values: printable ASCII (valid), quoted forms, and malformed ones. */
export const idempotencyKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 255 }) },
  { weight: 3, arbitrary: headerValue },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.string({ unit: 'grapheme-ascii', maxLength: 20 }),
        fc.integer({ min: 0x80, max: 0xff }),
        fc.string({ unit: 'grapheme-ascii', maxLength: 20 }),
      )
      .map(([a, code, b]) => `${a}${String.fromCharCode(code)}${b}`),
  },
  {
    weight: 1,
    arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 256, maxLength: 300 }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '"abc"',
      '"a\\"b"',
      '"',
      '""',
      '"unterminated',
      'a\tb',
      'é',
      'café-1',
      '\u00a0',
      '\u00ff'.repeat(10),
    ),
  },
);

/**
 * True when a header value, as the server receives it (HTTP trims surrounding spaces and
 * tabs), cannot be a valid Idempotency-Key: empty, longer than 255 characters (257 quoted),
 * or holding anything but printable ASCII.
 */
export function isMalformedIdempotencyKey(sent: string): boolean {
  const received = sent.replace(/^[ \t]+|[ \t]+$/g, '');
  return received.length === 0 || received.length > 257 || !/^[\x20-\x7e]+$/.test(received);
}

/** base64url of arbitrary bytes, a JWT-looking segment. */
export const base64UrlSegment: fc.Arbitrary<string> = fc
  .uint8Array({ maxLength: 60 })
  .map((bytes) => Buffer.from(bytes).toString('base64url'));

export function base64Url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
