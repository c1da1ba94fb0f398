/** graphql.md §4 naming table, row by row (declared names belong to the curated tier, not built yet). */
import { describe, expect, it } from 'vitest';
import { ActiveContext } from '../../rdf/jsonld-context.js';
import { allocateNames, RESERVED_TYPE_NAMES, rootNames } from './naming.js';

const EX = 'http://example.org/', S = 'http://schema.org/', FOAF = 'http://xmlns.com/foaf/0.1/';
const ctx = ActiveContext.create({ ex: EX, schema: S, foaf: FOAF });
const fields = (iris: string[], c = ctx) => Object.fromEntries(allocateNames(iris, c, new Set(['id'])));

describe('§4 naming', () => {
  it('plain, context term, punctuation and digits', () => {
    expect(fields([S + 'name'])).toEqual({ [S + 'name']: 'name' });
    expect(fields([S + 'name'], ActiveContext.create({ schema: S, fullName: 'schema:name' }))).toEqual({ [S + 'name']: 'fullName' });
    expect(fields([EX + 'first-name', EX + 'v1.2', EX + '2ndLine', EX + '__x'])).toEqual({ [EX + 'first-name']: 'first_name', [EX + 'v1.2']: 'v1_2', [EX + '2ndLine']: '_2ndLine', [EX + '__x']: 'x__x' });
  });
  it('collisions: qualified by prefix, an IRI without prefix stays, reserved id, numbered after qualifying', () => {
    expect(fields([S + 'name', FOAF + 'name'])).toEqual({ [S + 'name']: 'schema_name', [FOAF + 'name']: 'foaf_name' });
    expect(Object.fromEntries(allocateNames([EX + 'Person', 'http://other.org/Person'], ctx, RESERVED_TYPE_NAMES))).toEqual({ [EX + 'Person']: 'ex_Person', 'http://other.org/Person': 'Person' });
    expect(fields([EX + 'id'])).toEqual({ [EX + 'id']: 'ex_id' });
    expect(fields([EX + 'a-b', EX + 'a.b'])).toEqual({ [EX + 'a-b']: 'ex_a_b', [EX + 'a.b']: 'ex_a_b_2' });
  });
  it('root fields: clashes and plural rules', () => {
    const r = rootNames([{ name: 'Person' }, { name: 'Persons' }]);
    expect([...r.values()]).toEqual([{ singular: 'person', plural: 'person_list', count: 'person_list_count' }, { singular: 'persons', plural: 'personses', count: 'personses_count' }]);
    const p = rootNames([{ name: 'Company' }, { name: 'Box' }, { name: 'Person', plural: 'people' }]);
    expect([...p.values()].map((x) => [x.plural, x.count])).toEqual([['boxes', 'boxes_count'], ['companies', 'companies_count'], ['people', 'people_count']]);
  });
});
