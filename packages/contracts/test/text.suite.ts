import fc from 'fast-check';
import {
  buildOpenApiDocument,
  findUnsafeText,
  idPattern,
  parseJsonLossless,
  pathIdsOf,
  PLAIN_TEXT_PATTERN,
  ROUTES,
} from '@wallet/contracts';

/** A JSON value with no NUL anywhere, keys included. */
const cleanJson = fc.jsonValue().filter((value) => !JSON.stringify(value).includes('\\u0000'));

describe('text PostgreSQL cannot store', () => {
  it('finds a NUL put anywhere in a JSON value, and names where', () => {
    fc.assert(
      fc.property(
        cleanJson,
        fc.array(
          fc.oneof(
            fc.string({ minLength: 1, maxLength: 8 }).filter((key) => !key.includes('\u0000') && key !== '__proto__'),
            fc.nat(3),
          ),
          { maxLength: 5 },
        ),
        (base, path) => {
          // Builds the value at `path` (objects for strings, arrays for numbers) holding a NUL.
          let value: unknown = 'before\u0000after';
          for (const key of [...path].reverse())
            value = typeof key === 'number' ? [...Array.from({ length: key }, () => 'x'), value] : { [key]: value };
          const found = findUnsafeText([base, value]);
          expect(found?.path).toBe(['1', ...path.map(String)].join('.'));
        },
      ),
    );
  });

  it('finds nothing in clean values, and LosslessNumbers are not text', () => {
    fc.assert(fc.property(cleanJson, (value) => expect(findUnsafeText(value)).toBeNull()));
    expect(findUnsafeText(parseJsonLossless('{"amount": 10.50, "list": [1, 2e5]}'))).toBeNull();
  });

  it('refuses lone surrogates and takes surrogate pairs', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string(), (before, unit, after) => {
        const lone = String.fromCharCode(unit);
        // A high half right before a low half is a pair, not a lone surrogate.
        fc.pre(!(unit <= 0xdbff && /^[\udc00-\udfff]/.test(after)) && !(unit >= 0xdc00 && /[\ud800-\udbff]$/.test(before)));
        expect(findUnsafeText({ text: `${before}${lone}${after}` })?.path).toBe('text');
      }),
    );
    expect(findUnsafeText({ emoji: 'pay \ud83d\udcb8 now' })).toBeNull();
  });

  it('names a key holding a NUL by its parent, and walks 100,000 levels without a stack', () => {
    expect(findUnsafeText({ outer: { 'k\u0000': 1 } })?.path).toBe('outer');
    let deep: unknown = 'end\u0000';
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(findUnsafeText(deep)?.path.split('.').length).toBe(100_000);
  });
});

describe('ids in paths', () => {
  it('gives every path parameter of the API an id kind', () => {
    for (const route of ROUTES) {
      const parameters = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(pathIdsOf(route.path).map((id) => id.name)).toEqual(parameters);
    }
  });

  it('refuses a template whose parameter says nothing of its kind', () => {
    expect(() => pathIdsOf('/v1/things/{id}')).toThrow(/no id kind/);
    expect(pathIdsOf('/v1/wallets/{id}/entries')[0]?.pattern).toEqual(idPattern('wallet'));
  });
});

describe('names, slugs and ids a request takes', () => {
  /** Field names that name something a client chooses: names, slugs, ids, codes, references, members. */
  const NAMING = /(^name$|Name$|^id$|Id$|[sS]lug$|Code$|Ref$|[rR]eference$|By$|^email$)/;
  /** A line break, a bell, a C1 control, a right-to-left override and an isolate. */
  const FORBIDDEN = ['\n', '\u0007', '\u0085', '\u202e', '\u2067'];

  interface Field {
    where: string;
    schema: { type?: string; pattern?: string; enum?: unknown[]; anyOf?: unknown[] };
  }

  function namingFields(schema: Record<string, unknown> | undefined, where: string, found: Field[]): void {
    if (!schema) return;
    for (const branch of ['anyOf', 'oneOf', 'allOf'])
      for (const each of (schema[branch] as Array<Record<string, unknown>>) ?? []) namingFields(each, where, found);
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const [name, property] of Object.entries(properties)) {
      // A field that may be null has the types ["string", "null"] (JSON Schema 2020-12).
      if ([property.type].flat().includes('string') && NAMING.test(name)) found.push({ where: `${where}.${name}`, schema: property });
      namingFields(property, `${where}.${name}`, found);
    }
    namingFields(schema.items as Record<string, unknown> | undefined, `${where}[]`, found);
  }

  it('refuse control characters and bidirectional overrides, in bodies and queries alike', () => {
    const paths = buildOpenApiDocument({ version: 'test' }).paths as Record<string, Record<string, any>>;
    const fields: Field[] = [];
    for (const [path, operations] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        namingFields(operation.requestBody?.content?.['application/json']?.schema, `${method} ${path} body`, fields);
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in === 'query' && NAMING.test(parameter.name))
            fields.push({ where: `${method} ${path} query.${parameter.name}`, schema: parameter.schema });
        }
      }
    }
    expect(fields.length).toBeGreaterThan(40);
    const taking = fields.filter(({ schema }) => {
      if (schema.enum) return false;
      const pattern = schema.pattern === undefined ? null : new RegExp(schema.pattern);
      return FORBIDDEN.some((character) => pattern === null || pattern.test(`a${character}b`));
    });
    expect(taking.map((field) => field.where)).toEqual([]);
  });

  it('take names in any script, emoji included', () => {
    for (const name of ['Amina Wanjiru', 'أمينة', 'Nguyễn Văn A', '王小明', 'Shop 💸']) expect(PLAIN_TEXT_PATTERN.test(name)).toBe(true);
  });
});
