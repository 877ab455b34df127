import { createApiClient } from './client';

/** The page's API client: same origin, the CSRF token read from the page's cookies on each request. */
export const api = createApiClient({ readCookies: () => document.cookie });
