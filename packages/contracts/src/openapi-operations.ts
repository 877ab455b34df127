import type { z } from 'zod';
import { errorResponses } from './openapi-errors';
import { ROUTE_EXAMPLES, type RouteExamples } from './openapi-examples';
import type { SchemaWriter } from './openapi-schemas';
import { pathIdsOf } from './path-ids';
import type { RouteContract } from './route-contract';

const IDEMPOTENCY_KEY_DESCRIPTION = [
  'Kept 24 hours per tenant and environment (the platform operator has its own).',
  'A retry with the same key and the same request (method, path, query, actor, body bytes) replays the first answer with Idempotent-Replayed: true;',
  'another request with it is 422 IDEMPOTENCY_KEY_REUSED; one still running is 409 IDEMPOTENCY_REQUEST_IN_PROGRESS.',
  'An answer holding a secret shown once (API keys, webhook secrets) is kept encrypted under the service master key, never in clear.',
].join(' ');

const SUCCESS_TEXT: Readonly<Record<number, string>> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

/** Shared answers and headers, under `components` (openapi.ts). */
const ref = (kind: 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });

function examplesOf(route: RouteContract): RouteExamples | undefined {
  return route.operationId === undefined ? undefined : ROUTE_EXAMPLES[route.operationId];
}

/** A route's path ids, its query fields and its Idempotency-Key header. */
function routeParameters(route: RouteContract, schemas: SchemaWriter): unknown[] {
  const parameters: unknown[] = pathIdsOf(route.path).map(({ name, pattern }) => ({
    name,
    in: 'path',
    required: true,
    description: 'An id of its kind: any other shape names nothing (404 NOT_FOUND)',
    schema: { type: 'string', pattern: pattern.source },
  }));
  if (route.query) {
    for (const [name, field] of Object.entries(route.query.shape)) {
      // Required when leaving it out fails (no default, not optional): a balance's `at`.
      const schema = field as z.ZodType;
      parameters.push({ name, in: 'query', required: !schema.safeParse(undefined).success, schema: schemas.write(schema, 'input') });
    }
  }
  if (route.idempotencyKey) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: route.idempotencyKey === 'required',
      description: IDEMPOTENCY_KEY_DESCRIPTION,
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  return parameters;
}

/** The route's JSON body, with its example, and the other media types it takes as text. */
function requestBody(route: RouteContract, body: z.ZodType, schemas: SchemaWriter): Record<string, unknown> {
  const example = examplesOf(route)?.request;
  const alsoAccepted = Object.fromEntries(
    (route.bodyOptIn?.mediaTypes ?? []).map((mediaType) => [mediaType, { schema: { type: 'string' } }]),
  );
  return {
    required: true,
    content: { 'application/json': { schema: schemas.write(body, 'input'), ...(example ? { example } : {}) }, ...alsoAccepted },
  };
}

/** The route's 2xx answers, each with the success body and its example. */
function successResponses(route: RouteContract, schemas: SchemaWriter): Record<string, unknown> {
  const answers: Array<[number, string]> = [
    [route.success.status, SUCCESS_TEXT[route.success.status] ?? 'Success'],
    ...Object.entries(route.alsoAnswers ?? {}).map(([status, when]): [number, string] => [Number(status), when]),
  ];
  const schema = schemas.write(route.success.schema, 'output');
  const examples = examplesOf(route)?.responses ?? {};
  return Object.fromEntries(
    answers.map(([status, description]) => {
      const example = examples[status as keyof typeof examples];
      return [
        String(status),
        {
          description,
          ...(route.idempotencyKey ? { headers: { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') } } : {}),
          content: route.answers
            ? { [route.answers]: { schema: { type: 'string' } } }
            : { 'application/json': { schema, ...(example ? { example } : {}) } },
        },
      ];
    }),
  );
}

/** A route's operation: its name, parameters, credentials, body and every answer. */
export function routeOperation(route: RouteContract, schemas: SchemaWriter): Record<string, unknown> {
  const security =
    route.surface === 'system'
      ? [{ systemKey: [] }]
      : route.surface === 'public'
        ? []
        : [{ apiKey: [] }, { signedRequest: [] }, { session: [] }];
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.service],
    parameters: routeParameters(route, schemas),
    security,
    ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    ...(route.body ? { requestBody: requestBody(route, route.body, schemas) } : {}),
    responses: {
      ...successResponses(route, schemas),
      ...errorResponses(route, schemas),
      '503': ref('responses', 'ServiceUnavailable'),
      default: ref('responses', 'InternalError'),
    },
  };
}
