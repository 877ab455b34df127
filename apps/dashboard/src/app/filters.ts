import { walletQuerySchema } from '@wallet/contracts';

/** The wallet list's filters live in the URL (shareable, back button), checked by the API's own query schema. */
export const walletFiltersSchema = walletQuerySchema.pick({ ownerType: true, ownerId: true, currencyCode: true, status: true });
