import {
  CASE_STATE_COLUMNS,
  type DraftOf,
  FEE_COLUMNS,
  filled,
  recordColumns,
  SCOPED_RECORD_COLUMNS,
  type StoredOf,
  withFilled,
  written,
  writtenOnly,
} from '../src';

const columns = recordColumns({
  seq: filled<string>('bigint'),
  id: written<string>('text'),
  tenantId: written<string>('text'),
  fromWalletId: written<string>('text'),
  amount: written<string>('numeric'),
  status: filled<'pending' | 'completed'>('text'),
  createdAt: written<Date>('timestamptz'),
});

describe('recordColumns', () => {
  it('reads every column by its snake_case name, in the spec order', () => {
    expect(columns.names).toEqual(['seq', 'id', 'tenant_id', 'from_wallet_id', 'amount', 'status', 'created_at']);
  });

  it('writes only the written columns, each bound as its type', () => {
    expect(columns.written).toEqual({ id: 'text', tenantId: 'text', fromWalletId: 'text', amount: 'numeric', createdAt: 'timestamptz' });
  });

  it('types the stored record and the draft from the same spec', () => {
    const draft: DraftOf<typeof columns> = { id: 'trf_1', fromWalletId: 'wal_1', amount: '10.00', createdAt: new Date(0) };
    const stored: StoredOf<typeof columns> = { ...draft, seq: '1', tenantId: 'ten_1', status: 'pending' };
    expect(Object.keys(stored).sort()).toEqual(Object.keys(columns.spec).sort());
  });

  it('lets a case type spread the case state in, narrowing its status where it stands', () => {
    const cases = recordColumns({ ...CASE_STATE_COLUMNS, status: filled<'pending'>('text') });
    expect(cases.names.slice(0, 5)).toEqual(['seq', 'id', 'tenant_id', 'environment', 'requested_by']);
    expect(Object.keys(cases.written)).toEqual([
      'id',
      'tenantId',
      'environment',
      'requestedBy',
      'approvalsRequired',
      'approverRole',
      'createdAt',
    ]);
  });

  it('spells the scope and the fee columns once for every record that spreads them in', () => {
    const charged = recordColumns({ ...SCOPED_RECORD_COLUMNS, amount: written<string>('numeric'), ...FEE_COLUMNS });
    expect(charged.names).toEqual([
      'seq',
      'id',
      'tenant_id',
      'environment',
      'amount',
      'fee',
      'commission',
      'fee_schedule_id',
      'fee_rule_id',
      'platform_commission_bps',
    ]);
    const draft: DraftOf<typeof charged> = {
      id: 'trf_1',
      amount: '10.00',
      fee: '0.50',
      commission: '0.05',
      feeScheduleId: null,
      feeRuleId: null,
      platformCommissionBps: 1000,
    };
    expect(Object.keys(draft).sort()).toEqual(
      Object.keys(charged.written)
        .filter((field) => field !== 'tenantId' && field !== 'environment')
        .sort(),
    );
  });

  it('writes a written-only column without reading it: in the draft, not in the stored record', () => {
    const kept = recordColumns({ id: written<string>('text'), ruleId: writtenOnly<string | null>('text'), seq: filled<string>('bigint') });
    expect(kept.names).toEqual(['id', 'seq']);
    expect(kept.written).toEqual({ id: 'text', ruleId: 'text' });
    const draft: DraftOf<typeof kept> = { id: 'dep_1', ruleId: null };
    const stored: StoredOf<typeof kept> = { id: draft.id, seq: '1' };
    expect(Object.keys(stored)).toEqual(['id', 'seq']);
  });

  it('gives another way of creating the record its own draft, leaving columns to a later step, with the same reads', () => {
    const later = withFilled(columns, ['amount', 'createdAt']);
    expect(later.names).toEqual(columns.names);
    expect(later.written).toEqual({ id: 'text', tenantId: 'text', fromWalletId: 'text' });
    const draft: DraftOf<typeof later> = { id: 'trf_1', fromWalletId: 'wal_1' };
    // @ts-expect-error the amount is left to a later step in this way's draft
    const withAmount: DraftOf<typeof later> = { ...draft, amount: '10.00' };
    expect(withAmount).toBeDefined();
    const stored: StoredOf<typeof columns> = {
      ...draft,
      seq: '1',
      tenantId: 'ten_1',
      amount: '10.00',
      status: 'pending',
      createdAt: new Date(0),
    };
    const same: StoredOf<typeof later> = stored;
    expect(same).toBe(stored);
    expect(columns.written).toHaveProperty('amount', 'numeric');
  });
});
