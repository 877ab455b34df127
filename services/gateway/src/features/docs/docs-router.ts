import express from 'express';
import swaggerUi from 'swagger-ui-express';

const DOCS_PATH = '/docs';

/**
 * /openapi.json and /docs. The UI's scripts and styles come from the installed swagger-ui-dist,
 * served under /docs/, never from a CDN.
 */
export function docsRouter(document: Record<string, unknown>): express.Router {
  const router = express.Router();
  const documentText = JSON.stringify(document);
  // The page links its assets as `./x`, which from `/docs` (no trailing slash) would point at
  // `/x`; absolute links work from both `/docs` and `/docs/`.
  const page = swaggerUi.generateHTML(document, { customSiteTitle: 'Wallet platform API' }).replaceAll('="./', `="${DOCS_PATH}/`);

  router.get('/openapi.json', (_request, response) => {
    response.type('application/json').send(documentText);
  });
  router.get(DOCS_PATH, (_request, response) => {
    response.type('html').send(page);
  });
  router.use(DOCS_PATH, swaggerUi.serveFiles(document));
  return router;
}
