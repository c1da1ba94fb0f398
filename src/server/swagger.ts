/**
 * The route table and the OpenAPI 3.0 document of `GET /swagger.json` (http-api.md §4.1). Every
 * endpoint is registered through `route()`, which adds the Hono handler and its description in one
 * call, so the published document cannot drift from what the server actually answers.
 */
import type { Handler, Hono } from 'hono';
import type { AppEnv } from './app-env.js';

/** Methods a route may document. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

/** A query parameter or request header of a route. */
export interface ParamSpec {
  name: string;
  description: string;
  type?: 'string' | 'boolean' | 'integer';
  required?: boolean;
  /** The parameter may be given more than once. */
  repeatable?: boolean;
}

/** One documented endpoint. */
export interface RouteSpec {
  method: HttpMethod;
  /**
   * OpenAPI-style path relative to `api_base_url` (or to the root when `root` is set). `{ledger}` is
   * the greedy `<ledger...>` tail (may contain `/`, `:` and a time specifier); other `{x}` are one segment.
   */
  path: string;
  /** Mounted at the server root instead of under `api_base_url` (health, discovery, swagger). */
  root?: boolean;
  /** Endpoint group, e.g. `write`, `query`, `history`. */
  tag: string;
  summary: string;
  description?: string;
  query?: ParamSpec[];
  headers?: ParamSpec[];
  /** Accepted request content types; absent = no body. */
  requestTypes?: string[];
  /** Content types of the success response (default `application/json`). */
  responseTypes?: string[];
  /** Status code to description; statuses >= 400 are documented with the §7 error body. */
  responses: Record<number, string>;
  /** Also answers HEAD (GET routes only; Hono serves HEAD from the GET handler). */
  head?: boolean;
}

/** Every route of the server, in registration order. */
export class RouteTable {
  private readonly specs: RouteSpec[] = [];

  /** Record a route (a second spec for the same method and path replaces the first). */
  add(spec: RouteSpec): void {
    const i = this.specs.findIndex((s) => s.method === spec.method && s.path === spec.path && !!s.root === !!spec.root);
    if (i >= 0) this.specs[i] = spec;
    else this.specs.push(spec);
  }

  /** The recorded routes. */
  all(): readonly RouteSpec[] { return this.specs; }

  /**
   * The methods answered at a request path (`apiBaseUrl` is where non-root routes are mounted),
   * HEAD with every GET and OPTIONS with any; empty when no route has this path.
   */
  methodsAt(path: string, apiBaseUrl: string): string[] {
    const found = new Set<string>();
    for (const spec of this.specs) {
      const full = spec.root ? spec.path : apiBaseUrl + spec.path;
      let re = this.patterns.get(full);
      if (!re) this.patterns.set(full, re = pathPattern(full));
      if (!re.test(path)) continue;
      found.add(spec.method);
      if (spec.method === 'GET') found.add('HEAD');
    }
    if (found.size === 0) return [];
    found.add('OPTIONS');
    return ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'].filter((m) => found.has(m));
  }

  private readonly patterns = new Map<string, RegExp>();
}

/** A RegExp matching the request paths of a spec path (`{ledger}` greedy, other `{x}` one segment). */
function pathPattern(path: string): RegExp {
  const parts = path.split(/(\{[A-Za-z_][A-Za-z0-9_]*\})/);
  const src = parts.map((p) => (p === '{ledger}' ? '.+' : /^\{\w+\}$/.test(p) ? '[^/]+' : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${src}$`);
}

/** The Hono path of a spec path: `{ledger}` becomes a greedy tail, other `{x}` a single segment. */
export function honoPath(path: string): string {
  return path.replace(/\{ledger\}/g, ':ledger{.+}').replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

/** Register `handler` on `api` for the spec's method and path, and record the spec in `table`. */
export function route(api: Hono<AppEnv>, table: RouteTable, spec: RouteSpec, handler: Handler<AppEnv>): void {
  if (spec.method === 'HEAD') throw new Error('register GET with head: true; Hono answers HEAD from GET');
  api.on(spec.method, honoPath(spec.path), handler);
  table.add(spec);
}

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error', 'status', '@type'],
  properties: {
    error: { type: 'string', description: 'Human-readable message (stable; clients may match substrings)' },
    status: { type: 'integer', description: 'HTTP status' },
    '@type': { type: 'string', description: 'Stable error category IRI, e.g. err:db/LedgerNotFound' },
    cause: { $ref: '#/components/schemas/Error' },
  },
};

function paramObject(p: ParamSpec, where: 'query' | 'header'): Record<string, unknown> {
  const base = { type: p.type ?? 'string' };
  const schema = p.repeatable ? { type: 'array', items: base } : base;
  const out: Record<string, unknown> = { name: p.name, in: where, description: p.description, required: !!p.required, schema };
  if (p.repeatable) { out.style = 'form'; out.explode = true; }
  return out;
}

function operation(spec: RouteSpec, method: string): Record<string, unknown> {
  const params: Record<string, unknown>[] = [];
  for (const m of spec.path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    const name = m[1]!;
    params.push({
      name, in: 'path', required: true, schema: { type: 'string' },
      description: name === 'ledger'
        ? 'Ledger id `name:branch` (a bare name means `name:main`); the rest of the path, so it may contain `/` and `:`'
        : name,
    });
  }
  for (const q of spec.query ?? []) params.push(paramObject(q, 'query'));
  for (const h of spec.headers ?? []) params.push(paramObject(h, 'header'));
  const responses: Record<string, unknown> = {};
  for (const [status, description] of Object.entries(spec.responses)) {
    const code = Number(status);
    if (code >= 400) {
      responses[status] = { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    } else if (code === 204 || code === 304 || method === 'head') {
      responses[status] = { description };
    } else {
      const types = spec.responseTypes ?? ['application/json'];
      responses[status] = { description, content: Object.fromEntries(types.map((t) => [t, { schema: {} }])) };
    }
  }
  const op: Record<string, unknown> = {
    operationId: `${method}${spec.root ? '' : '_api'}${spec.path.replace(/[^A-Za-z0-9]+/g, '_')}`,
    tags: [spec.tag],
    summary: spec.summary,
    responses,
  };
  if (spec.description) op.description = spec.description;
  if (params.length) op.parameters = params;
  if (spec.requestTypes?.length) {
    op.requestBody = { required: true, content: Object.fromEntries(spec.requestTypes.map((t) => [t, { schema: {} }])) };
  }
  return op;
}

/** The OpenAPI 3.0 document describing every route in `table`. */
export function openApiDocument(table: RouteTable, info: { version: string; apiBaseUrl: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of table.all()) {
    const path = spec.root ? spec.path : info.apiBaseUrl + spec.path;
    const item = (paths[path] ??= {});
    item[spec.method.toLowerCase()] = operation(spec, spec.method.toLowerCase());
    if (spec.head && spec.method === 'GET') {
      item.head = operation({ ...spec, method: 'HEAD', summary: `${spec.summary} (headers only)` }, 'head');
    }
  }
  const tags = [...new Set(table.all().map((s) => s.tag))].map((name) => ({ name }));
  return {
    openapi: '3.0.3',
    info: {
      title: 'Ledgraph HTTP API',
      version: info.version,
      description: 'Ledger-oriented RDF graph database. Errors are {error, status, @type, cause?} bodies (http-api.md §7).',
    },
    servers: [{ url: '/' }],
    tags,
    paths,
    components: { schemas: { Error: ERROR_SCHEMA } },
  };
}
