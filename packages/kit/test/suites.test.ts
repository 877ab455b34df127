import { describeSuites } from '../src/testing';

/** Every suite of this folder (`*.suite.ts`) in one jest file, so their modules load once (describeSuites). */
describeSuites(__dirname);
