/**
 * Highlighting for GraphQL and Cypher as CodeMirror stream languages (keywords, names, strings,
 * numbers, comments, variables, punctuation): no maintained CodeMirror 6 package covers Cypher, and
 * the GraphQL one would pull graphql-js into the editor chunk for highlighting alone.
 */
import { StreamLanguage, type StreamParser } from '@codemirror/language';

interface TokState { inBlock: boolean }

/** GraphQL keywords (operations, type system) and the words completion offers first. */
export const GRAPHQL_KEYWORDS = ['query', 'mutation', 'subscription', 'fragment', 'on', 'true', 'false', 'null'];

/** Cypher clause and operator keywords (read clauses first). */
export const CYPHER_KEYWORDS = ['MATCH', 'OPTIONAL MATCH', 'WHERE', 'WITH', 'UNWIND', 'RETURN', 'ORDER BY', 'SKIP', 'LIMIT', 'DISTINCT',
  'AS', 'AND', 'OR', 'NOT', 'XOR', 'IN', 'IS NULL', 'IS NOT NULL', 'STARTS WITH', 'ENDS WITH', 'CONTAINS', 'CASE', 'WHEN', 'THEN',
  'ELSE', 'END', 'UNION', 'UNION ALL', 'EXISTS', 'CALL', 'YIELD', 'ASC', 'DESC', 'count', 'collect', 'sum', 'avg', 'min', 'max',
  'size', 'labels', 'type', 'keys', 'properties', 'toString', 'toInteger', 'coalesce', 'id', 'CREATE', 'MERGE', 'SET', 'DELETE',
  'DETACH DELETE', 'REMOVE'];

const cypherWords = new Set(CYPHER_KEYWORDS.flatMap((k) => k.split(' ')).map((k) => k.toUpperCase()));

function strings(stream: Parameters<StreamParser<TokState>['token']>[0]): string | null {
  const q = stream.peek();
  if (q !== '"' && q !== "'") return null;
  stream.next();
  let escaped = false;
  for (let c = stream.next(); c !== undefined && c !== null; c = stream.next()) {
    if (c === q && !escaped) break;
    escaped = !escaped && c === '\\';
  }
  return 'string';
}

const graphqlParser: StreamParser<TokState> = {
  name: 'graphql',
  startState: () => ({ inBlock: false }),
  token(stream, state) {
    if (state.inBlock) {
      if (stream.skipTo('"""')) { stream.match('"""'); state.inBlock = false; } else stream.skipToEnd();
      return 'string';
    }
    if (stream.eatSpace() || stream.eat(',')) return null;
    if (stream.match('#')) { stream.skipToEnd(); return 'comment'; }
    if (stream.match('"""')) { state.inBlock = true; return 'string'; }
    const s = strings(stream);
    if (s) return s;
    if (stream.match(/^\$[A-Za-z_]\w*/)) return 'variableName';
    if (stream.match(/^@[A-Za-z_]\w*/)) return 'meta';
    if (stream.match(/^-?\d+(\.\d+)?([eE][+-]?\d+)?/)) return 'number';
    const w = stream.match(/^[A-Za-z_]\w*/) as RegExpMatchArray | null;
    if (w) {
      if (GRAPHQL_KEYWORDS.includes(w[0])) return 'keyword';
      return /^[A-Z]/.test(w[0]) ? 'typeName' : 'propertyName';
    }
    if (stream.match(/^[{}()[\]]/)) return 'bracket';
    stream.next();
    return 'punctuation';
  },
  languageData: { commentTokens: { line: '#' }, closeBrackets: { brackets: ['(', '[', '{', '"'] } },
};

const cypherParser: StreamParser<TokState> = {
  name: 'cypher',
  startState: () => ({ inBlock: false }),
  token(stream, state) {
    if (state.inBlock) {
      if (stream.skipTo('*/')) { stream.match('*/'); state.inBlock = false; } else stream.skipToEnd();
      return 'comment';
    }
    if (stream.eatSpace()) return null;
    if (stream.match('//')) { stream.skipToEnd(); return 'comment'; }
    if (stream.match('/*')) { state.inBlock = true; return 'comment'; }
    const s = strings(stream);
    if (s) return s;
    if (stream.match(/^`[^`]*`/)) return 'typeName';
    if (stream.match(/^\$\w+/)) return 'variableName';
    if (stream.match(/^\d+(\.\d+)?([eE][+-]?\d+)?/)) return 'number';
    if (stream.match(/^:\s*[A-Za-z_]\w*/)) return 'typeName';
    const w = stream.match(/^[A-Za-z_]\w*/) as RegExpMatchArray | null;
    if (w) {
      if (cypherWords.has(w[0].toUpperCase())) return 'keyword';
      return stream.peek() === '(' ? 'function' : 'variableName';
    }
    if (stream.match(/^[{}()[\]]/)) return 'bracket';
    if (stream.match(/^(<-|->|-|=~|<>|<=|>=|[=<>+*/%^.,|])/)) return 'operator';
    stream.next();
    return 'punctuation';
  },
  languageData: { commentTokens: { line: '//', block: { open: '/*', close: '*/' } }, closeBrackets: { brackets: ['(', '[', '{', '"', "'", '`'] } },
};

/** The GraphQL stream language. */
export const graphqlLanguage = StreamLanguage.define(graphqlParser);
/** The Cypher stream language. */
export const cypherLanguage = StreamLanguage.define(cypherParser);
