import { existsSync } from 'node:fs';
import path from 'node:path';
import { AppError, notFound } from '@wallet/kit';
import express, { type RequestHandler, Router } from 'express';

/**
 * What the browser may do with the dashboard's pages: scripts, styles and requests of this
 * origin only (Mantine sets CSS variables inline), and no framing by another site.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** `X-Content-Type-Options: nosniff` is set for every listener by the gateway app's frame. */
export const dashboardSecurityHeaders: RequestHandler = (_request, response, next) => {
  response.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  response.setHeader('X-Frame-Options', 'DENY');
  response.setHeader('Referrer-Policy', 'no-referrer');
  next();
};

/**
 * The built app: its hashed assets cached for good, and every other GET outside `/v1/` answered
 * with index.html, so a deep link or a reload lands in the app's own router. No source map.
 */
export function dashboardStatic(distDir: string): Router {
  const router = Router();
  const indexFile = path.join(distDir, 'index.html');
  // The source maps stay beside the build for whoever reads a stack trace; they are not served.
  router.use((request, _response, next) => (request.path.endsWith('.map') ? next(notFound()) : next()));
  router.use('/assets', express.static(path.join(distDir, 'assets'), { immutable: true, maxAge: '365d', index: false }));
  router.use(express.static(distDir, { index: false }));
  router.use((request, response, next) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    // An API path or a missing asset is a 404, not the app's page.
    if (request.path.startsWith('/v1/') || request.path.startsWith('/assets/')) return next();
    if (!existsSync(indexFile)) return next(new AppError('SERVICE_UNAVAILABLE', 'The dashboard is not built: run npm run build'));
    response.setHeader('Cache-Control', 'no-store');
    response.sendFile(indexFile);
  });
  return router;
}
