import { ID_PREFIXES } from '@wallet/contracts';
import { readSearch, SEARCHED_ID_KINDS } from '../src/app/search';

describe('the global search reads its text', () => {
  it('takes an id by its prefix, for every kind with a screen', () => {
    for (const kind of SEARCHED_ID_KINDS) {
      const id = `${ID_PREFIXES[kind]}_01JABCDEF`;
      expect(readSearch(`  ${id} `)).toEqual({ type: 'id', kind, id });
    }
  });

  it('takes anything else as text: a reference, a phone number, an owner id, an id-like text with other characters', () => {
    for (const text of ['mtn-42', '+256 700 000001', 'ada-7', 'tx_12 34', 'xx_ABC', '_tx'])
      expect(readSearch(text)).toEqual({ type: 'text', text });
    expect(readSearch('   ')).toBeNull();
  });
});
