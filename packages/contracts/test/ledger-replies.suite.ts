import { type LedgerResultV1, parseLedgerReplies } from '@wallet/contracts';

function result(commandId: string): LedgerResultV1 {
  return {
    type: 'ledger.result.v1',
    commandId,
    tenantId: 'org_1',
    environment: 'test',
    status: 'posted',
    journalEntryId: `je_${commandId}`,
    reference: { type: 'transfer', id: commandId },
    error: null,
    duplicate: false,
    processedAt: '2026-11-23T00:00:00.000Z',
  };
}

describe('ledger replies', () => {
  it('reads a lone result with the message correlation id, and several answers with their own', () => {
    expect(parseLedgerReplies(result('cmd_a'), 'corr-a')).toEqual([{ correlationId: 'corr-a', result: result('cmd_a') }]);
    const grouped = {
      type: 'ledger.replies.v1',
      replies: [
        { correlationId: 'corr-b', result: result('cmd_b') },
        { correlationId: null, result: result('cmd_c') },
      ],
    };
    expect(parseLedgerReplies(JSON.parse(JSON.stringify(grouped)), 'ignored')).toEqual(grouped.replies);
  });

  it('refuses anything else', () => {
    expect(parseLedgerReplies({ type: 'ledger.replies.v1', replies: [] }, null)).toBeNull();
    expect(parseLedgerReplies({ ...result('cmd_d'), status: 'maybe' }, null)).toBeNull();
    expect(parseLedgerReplies('text', null)).toBeNull();
  });
});
