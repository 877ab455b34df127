import { z } from 'zod';
import { amountInputSchema } from '../json';
import { currencyCodeSchema } from '../money';
import { plainTextSchema } from '../text';

export const slugSchema = z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, 'must be lowercase letters, digits and inner hyphens');

export const tenantConfigInputSchema = z.object({
  defaultCurrency: currencyCodeSchema,
  allowedCurrencies: z.array(currencyCodeSchema).min(1).max(50),
  maxTransactionAmount: amountInputSchema,
});

export const createTenantBodySchema = z.object({
  name: plainTextSchema(200),
  slug: slugSchema,
  config: tenantConfigInputSchema,
});
export type CreateTenantBody = z.infer<typeof createTenantBodySchema>;

export const createOrganizationBodySchema = createTenantBodySchema.extend({
  admin: z.object({ name: plainTextSchema(200), email: z.email().max(320) }).optional(),
});
export type CreateOrganizationBody = z.infer<typeof createOrganizationBodySchema>;

/**
 * The platform operator's changes to an organization: its name and its configuration, field by
 * field (a config field left out keeps its value). The slug is not changeable: dashboard logins
 * name the organization by it. Unknown fields are refused rather than silently ignored.
 */
export const updateOrganizationBodySchema = z
  .object({
    name: plainTextSchema(200).optional(),
    config: z
      .object({
        defaultCurrency: currencyCodeSchema.optional(),
        allowedCurrencies: z.array(currencyCodeSchema).min(1).max(50).optional(),
        maxTransactionAmount: amountInputSchema.optional(),
      })
      .strict()
      .refine(
        (config) => Object.values(config).some((value) => value !== undefined),
        'give defaultCurrency, allowedCurrencies or maxTransactionAmount',
      )
      .optional(),
  })
  .strict()
  .refine((body) => body.name !== undefined || body.config !== undefined, 'give name, config or both');
export type UpdateOrganizationBody = z.infer<typeof updateOrganizationBodySchema>;

export const tenantSchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  config: z.object({
    defaultCurrency: z.string(),
    allowedCurrencies: z.array(z.string()),
    maxTransactionAmount: z.string(),
  }),
  createdAt: z.string(),
});
export type Tenant = z.infer<typeof tenantSchema>;

export const ORG_ROLES = ['org-admin', 'operator', 'approver', 'developer', 'finance-viewer', 'observer', 'user'] as const;
export const orgRoleSchema = z.enum(ORG_ROLES);
export type OrgRole = z.infer<typeof orgRoleSchema>;

export const teamMemberSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  name: z.string(),
  email: z.string(),
  orgRole: orgRoleSchema,
  status: z.enum(['invited', 'active', 'deactivated']),
  createdAt: z.string(),
});
export type TeamMember = z.infer<typeof teamMemberSchema>;

export const organizationSchema = tenantSchema.extend({
  admin: teamMemberSchema.extend({ inviteEmailSent: z.boolean() }).nullable(),
});
export type Organization = z.infer<typeof organizationSchema>;
