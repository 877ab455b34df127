import { describeSuites } from '@wallet/kit/testing';

/**
 * Half of this folder's suites (`*.suite.ts`) in one jest file, so their modules load once (kit's
 * describeSuites); suites-2.test.ts runs the other half.
 */
describeSuites(__dirname, { part: 1, of: 2 });
