import {
  CASE_STATE_COLUMNS,
  type DraftOf,
  FEE_COLUMNS,
  filled,
  recordColumns,
  SCOPED_RECORD_COLUMNS,
  type StoredOf,
  written,
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
    expect(Object.keys(cases.written)).toEqual(['id', 'tenantId', 'environment', 'requestedBy', 'createdAt']);
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
});
