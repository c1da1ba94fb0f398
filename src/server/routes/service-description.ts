/**
 * The SPARQL 1.1 Service Description (https://www.w3.org/TR/sparql11-service-description/) a query
 * endpoint answers to a GET without `query=`: the endpoint's own URL, the languages it speaks
 * (query, and update on the dataset endpoint `/sparql/<ledger>`), the result formats, features,
 * and the ledger's dataset (its default graph and the named graphs at the head). Turtle (default)
 * or JSON-LD by Accept.
 */
import type { Context } from 'hono';
import { parseLedgerRef } from '../../core/ledger/ledger-id.js';
import { writeRdfXml, writeTurtle, writeNTriples } from '../../core/query/results/rdf-writers.js';
import { writeJsonLd } from '../../core/query/results/jsonld-writer.js';
import { blankNode, defaultGraph, literal, namedNode, type NamedNode, type Quad, type Term } from '../../core/rdf/terms.js';
import { RDF, rdf, xsd } from '../../core/rdf/vocab.js';
import { responseWithId, type AppEnv } from '../app.js';
import { negotiate } from '../http-util.js';
import type { ServerContext } from '../server-context.js';

const SD = 'http://www.w3.org/ns/sparql-service-description#';
const FORMATS = 'http://www.w3.org/ns/formats/';
const ENT = 'http://www.w3.org/ns/entailment/';

/** Result formats every query endpoint writes (W3C format IRIs). */
const RESULT_FORMATS = [
  'SPARQL_Results_JSON', 'SPARQL_Results_XML', 'SPARQL_Results_CSV', 'SPARQL_Results_TSV',
  'Turtle', 'N-Triples', 'N-Quads', 'TriG', 'RDF_XML', 'JSON-LD',
];

/** Input formats of the graph store and the write endpoints. */
const INPUT_FORMATS = ['Turtle', 'N-Triples', 'N-Quads', 'TriG', 'RDF_XML', 'JSON-LD'];

/** Response types, Turtle first (the default). */
const SD_TYPES = ['text/turtle', 'application/ld+json', 'application/json', 'application/n-triples', 'application/rdf+xml'];

/** The service description as quads. */
export async function serviceDescriptionQuads(ctx: ServerContext, endpoint: string, ledger: string | undefined, opts: { update: boolean }): Promise<Quad[]> {
  const quads: Quad[] = [];
  const add = (s: Term, p: string, o: Term) => quads.push({ subject: s, predicate: namedNode(p), object: o, graph: defaultGraph });
  const sd = (local: string): NamedNode => namedNode(SD + local);
  const svc = blankNode('service');
  add(svc, rdf.type, sd('Service'));
  add(svc, SD + 'endpoint', namedNode(endpoint));
  add(svc, SD + 'supportedLanguage', sd('SPARQL11Query'));
  if (opts.update) add(svc, SD + 'supportedLanguage', sd('SPARQL11Update'));
  for (const f of RESULT_FORMATS) add(svc, SD + 'resultFormat', namedNode(FORMATS + f));
  if (opts.update) for (const f of INPUT_FORMATS) add(svc, SD + 'inputFormat', namedNode(FORMATS + f));
  if (ctx.config.federationAllow.length) add(svc, SD + 'feature', sd('BasicFederatedQuery'));
  add(svc, SD + 'defaultEntailmentRegime', namedNode(ENT + 'Simple'));
  if (ledger === undefined) return quads;
  const ref = parseLedgerRef(ledger);
  const db = await (await ctx.conn.ledger(ref.id)).db(ref.time);
  const ds = blankNode('dataset');
  add(svc, SD + 'defaultDataset', ds);
  add(ds, rdf.type, sd('Dataset'));
  const dflt = blankNode('defaultGraph');
  add(ds, SD + 'defaultGraph', dflt);
  add(dflt, rdf.type, sd('Graph'));
  add(ds, 'http://purl.org/dc/terms/title', literal(`${ref.id} at t ${db.t}`));
  add(ds, 'https://ns.ledgraph.dev/t', literal(String(db.t), namedNode(xsd.integer)));
  // sd:name is an IRI: graphs named by a blank node are in the dataset but have no name to list.
  const names = db.namedGraphs().map((g) => db.graphIri(g)).filter((iri): iri is string => iri !== undefined && !iri.startsWith('_:')).sort();
  names.forEach((iri, i) => {
    const ng = blankNode(`namedGraph${i}`);
    add(ds, SD + 'namedGraph', ng);
    add(ng, rdf.type, sd('NamedGraph'));
    add(ng, SD + 'name', namedNode(iri));
    const g = blankNode(`graph${i}`);
    add(ng, SD + 'graph', g);
    add(g, rdf.type, sd('Graph'));
  });
  return quads;
}

/**
 * Answer a service description for the endpoint of this request (its URL without the query
 * string); `ledger` (may carry a time pin) adds its dataset. 404 when the ledger does not exist.
 */
export async function serviceDescription(c: Context<AppEnv>, ctx: ServerContext, ledger: string | undefined, opts: { update: boolean }): Promise<Response> {
  const type = negotiate(c.req.header('Accept'), SD_TYPES);
  const url = new URL(c.req.url);
  const quads = await serviceDescriptionQuads(ctx, url.origin + url.pathname, ledger, opts);
  const result = { type: 'quads' as const, quads: (async function* () { yield* quads; })() };
  const prefixes = { sd: SD, formats: FORMATS, rdf: RDF };
  const chunks = type === 'text/turtle' ? writeTurtle(result, { prefixes })
    : type === 'application/n-triples' ? writeNTriples(result)
      : type === 'application/rdf+xml' ? writeRdfXml(result, { prefixes })
        : writeJsonLd(result);
  let text = '';
  for await (const chunk of chunks) text += chunk;
  return responseWithId(c, text, 200, { 'content-type': type === 'text/turtle' ? 'text/turtle; charset=utf-8' : type, vary: 'Accept' });
}
