import { describeSuites } from '@wallet/kit/testing';

/** Every suite of this folder (`*.suite.ts`) in one jest file, so their modules load once (kit's describeSuites). */
describeSuites(__dirname);
