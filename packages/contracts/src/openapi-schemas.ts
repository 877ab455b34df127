import { z } from 'zod';
import { errorBodySchema } from './errors';
import { apiKeySchema, apiKeyWithSecretSchema } from './http/api-keys';
import { auditEventSchema } from './http/audit';
import { accountBalanceAtSchema, walletBalanceAtSchema } from './http/balances';
import { deadLetterSchema, deadLetterSummarySchema } from './http/dead-letters';
import { depositSchema, statementLineRecordSchema } from './http/deposits';
import { feeQuoteSchema, feeRuleSchema, feeScheduleSchema, feeScheduleWithRulesSchema } from './http/fees';
import { organizationSchema, teamMemberSchema, tenantSchema } from './http/identity';
import { journalEntrySchema, ledgerAccountSchema, reconciliationResultSchema, statementLineSchema } from './http/ledger';
import { momoProviderSchema, momoProviderWithSecretSchema } from './http/momo-providers';
import { payoutCaseSchema } from './http/payouts';
import { reconciliationFullRunSchema, reconciliationRunSchema, reconciliationRunSummarySchema } from './http/reconciliation';
import { requestLogSchema } from './http/request-logs';
import { sessionSchema } from './http/team';
import { transferReversalSchema, transferSchema } from './http/transfers';
import { floatDepositSchema, treasuryBalancesSchema, withdrawalSchema } from './http/treasury';
import { walletSchema } from './http/wallets';

/** A JSON Schema (2020-12, as OpenAPI 3.1 takes it) as the document holds it. */
export type JsonSchema = Record<string, unknown>;

/**
 * The objects the API answers with, each named once under `components.schemas` and `$ref`ed
 * wherever an answer holds it, so generated clients get one type per object. Request bodies stay
 * inline: what a client sends differs from what it reads back (amounts as numbers, defaults).
 */
const COMPONENT_SCHEMAS: ReadonlyArray<readonly [string, z.ZodType]> = [
  ['Error', errorBodySchema],
  ['Tenant', tenantSchema],
  ['Organization', organizationSchema],
  ['ApiKey', apiKeySchema],
  ['ApiKeyWithSecret', apiKeyWithSecretSchema],
  ['TeamMember', teamMemberSchema],
  ['Session', sessionSchema],
  ['MomoProvider', momoProviderSchema],
  ['MomoProviderWithSecret', momoProviderWithSecretSchema],
  ['AuditEvent', auditEventSchema],
  ['RequestLog', requestLogSchema],
  ['Wallet', walletSchema],
  ['WalletBalanceAt', walletBalanceAtSchema],
  ['StatementLine', statementLineSchema],
  ['Deposit', depositSchema],
  ['BankStatementLine', statementLineRecordSchema],
  ['Transfer', transferSchema],
  ['TransferReversal', transferReversalSchema],
  ['PayoutCase', payoutCaseSchema],
  ['FloatDeposit', floatDepositSchema],
  ['Withdrawal', withdrawalSchema],
  ['TreasuryBalances', treasuryBalancesSchema],
  ['FeeSchedule', feeScheduleSchema],
  ['FeeScheduleWithRules', feeScheduleWithRulesSchema],
  ['FeeRule', feeRuleSchema],
  ['FeeQuote', feeQuoteSchema],
  ['JournalEntry', journalEntrySchema],
  ['LedgerAccount', ledgerAccountSchema],
  ['AccountBalanceAt', accountBalanceAtSchema],
  ['ReconciliationResult', reconciliationResultSchema],
  ['ReconciliationRunSummary', reconciliationRunSummarySchema],
  ['ReconciliationRun', reconciliationRunSchema],
  ['ReconciliationFullRun', reconciliationFullRunSchema],
  ['DeadLetterSummary', deadLetterSummarySchema],
  ['DeadLetter', deadLetterSchema],
];

/** Keyed by the schema object itself, as zod hands it to `override` (its core type). */
const COMPONENT_NAMES: ReadonlyMap<unknown, string> = new Map(COMPONENT_SCHEMAS.map(([name, schema]) => [schema, name]));

export function componentRef(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * Turns zod schemas into the document's JSON Schemas and keeps the components they named, so
 * that `components.schemas` holds exactly the ones in use (an unused one is a lint warning).
 */
export class SchemaWriter {
  private readonly used = new Set<string>();

  /** An answer's or a request's schema; an answer's named objects become `$ref`s. */
  write(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const name = io === 'output' ? COMPONENT_NAMES.get(schema) : undefined;
    if (name) {
      this.used.add(name);
      return componentRef(name);
    }
    return this.convert(schema, io, undefined);
  }

  /** The named schemas written so far, and those they name in turn, in the list's order. */
  components(): Record<string, JsonSchema> {
    const written = new Map<string, JsonSchema>();
    while (written.size < this.used.size) {
      for (const [name, schema] of COMPONENT_SCHEMAS)
        if (this.used.has(name) && !written.has(name)) written.set(name, this.convert(schema, 'output', schema));
    }
    return Object.fromEntries(COMPONENT_SCHEMAS.flatMap(([name]) => (written.has(name) ? [[name, written.get(name) as JsonSchema]] : [])));
  }

  private convert(schema: z.ZodType, io: 'input' | 'output', itself: unknown): JsonSchema {
    const { $schema: _dialect, ...converted } = z.toJSONSchema(schema, {
      io,
      target: 'draft-2020-12',
      unrepresentable: 'any',
      override: (context) => {
        // A lossless JSON number (lossless-json's LosslessNumber) is the only custom schema the contracts hold.
        if (context.zodSchema._zod.def.type === 'custom') context.jsonSchema.type = 'number';
        const name = io === 'output' && context.zodSchema !== itself ? COMPONENT_NAMES.get(context.zodSchema) : undefined;
        if (!name) return;
        for (const key of Object.keys(context.jsonSchema)) delete context.jsonSchema[key];
        Object.assign(context.jsonSchema, componentRef(name));
        this.used.add(name);
      },
    });
    return converted;
  }
}
